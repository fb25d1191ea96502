//! One router: input-buffered virtual channels, credits for the VCs downstream of each output,
//! a separable input-first switch and VC allocator with round-robin arbitration, and, for a
//! chip, its source queues, injection port and ejection port.
//!
//! A chip's source queues feed the injection port's queues one to one: one queue in all
//! (`InjectionQueues::Single`, BookSim2's source queue: messages leave one after another) or
//! one per message (`PerMessage`, up to `MAX_VCS`: messages leave side by side, their packets
//! interleaved by the input's round-robin).
//!
//! Virtual cut-through: a packet is allocated an output only when the downstream VC has credits
//! for all of its flits. A packet occupies its output link for `flits x ticks_per_flit` (the
//! link's rate) and cannot finish before its own tail has arrived (cut-through of a packet
//! still streaming in). Its head reaches the next router `latency` cycles after the head flit
//! is serialized, and may be forwarded `router_delay` cycles later. The credits of a VC return
//! upstream `latency` cycles after the packet's tail has left it.
//!
//! With flit switch allocation (`SwitchAllocation::Flit`, BookSim2's router) the allocator
//! grants one flit at a time instead: a packet takes a downstream VC with room for all of it
//! (cut-through; for one flit under wormhole, its further flits then waiting for credits) when
//! its head flit is granted and holds it until its tail has left, while the flits of
//! packets on different VCs interleave on the ports; each flit arrives downstream (`Event::Flit`
//! after the head's `Arrive`) and returns its credit on its own.
//!
//! With a crossbar speedup s > 1 a packet crosses the switch s times faster than its links
//! (input ports read, output ports take, at s x their link's rate) into its output's queue of
//! `output_buffer_flits`, and the link sends it when the packets queued before it have left;
//! its input buffer, and so the upstream credits, are freed when it has crossed. With s = 1 the
//! crossing is the link's transmission itself (an input-queued router, no output queue).

use super::config::{
    Arbitration, Ejection, FlowControl, InjectionQueues, InputPace, LinkLatency, SwitchAllocation,
    VcAllocation, MAX_VCS,
};
use super::engine::{Outgoing, Post, Shared, Workload};
use super::fabric::{Port, NO_LINK, TICKS};
use super::rng::Stream;
use super::stats::Counters;
use crate::error::{RailxError, Result};
use crate::routing::{Hop, RouteState, Selection};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Marks a packet that belongs to no DAG message.
pub const NO_MSG: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Packet {
    pub dst: u32,
    pub flits: u32,
    /// Flits of it present at this router (all of them with packet switch allocation; under
    /// flit allocation counted up as its flits come in).
    pub arrived: u32,
    pub msg: u32,
    /// Cycle its message was generated (latency counts from here, source queueing included).
    pub created: u64,
    /// First cycle this router may forward it.
    pub head_ready: u64,
    /// Tick at which its last flit has arrived here.
    pub tail_in: u64,
    pub state: RouteState,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Event {
    Arrive {
        port: u32,
        vc: u8,
        packet: Packet,
    },
    /// A further flit of the packet last arrived on (`port`, `vc`) (flit switch allocation).
    Flit {
        port: u32,
        vc: u8,
    },
    Credit {
        port: u32,
        vc: u8,
        flits: u32,
    },
    Eject {
        packet: Packet,
    },
    /// `packet`, sent on output `out` into VC `vc` of its destination chip, is delivered there
    /// without queueing (`Ejection::OnArrival`): the event returns its credits to the sender
    /// and counts its delivery.
    Finish {
        out: u32,
        vc: u8,
        packet: Packet,
    },
    /// A message that DAG message `msg` waits for arrived at cycle `done`.
    DepDone {
        msg: u32,
        done: u64,
    },
}

impl Packet {
    /// The head packet of an empty queue (never read).
    const NONE: Packet = Packet {
        dst: 0,
        flits: 0,
        arrived: 0,
        msg: NO_MSG,
        created: 0,
        head_ready: 0,
        tail_in: 0,
        state: RouteState {
            exit: crate::routing::NO_LINK,
            hops: 0,
            misroutes: 0,
            vc: 0,
            dim: crate::routing::NO_DIM,
            via: crate::routing::NO_VIA,
            mesh: crate::routing::MeshOrder::Unchosen,
        },
    };
}

impl Event {
    /// Flits of a packet this event carries (on a link, or ejecting).
    pub fn flits(&self) -> u64 {
        match self {
            Event::Arrive { packet, .. } => packet.arrived as u64,
            Event::Flit { .. } => 1,
            Event::Eject { packet } | Event::Finish { packet, .. } => packet.flits as u64,
            _ => 0,
        }
    }
}

/// A message waiting in a chip's source queue, leaving packet by packet.
#[derive(Debug, Clone, Copy)]
struct SourceMsg {
    dst: u32,
    flits_left: u64,
    msg: u32,
    created: u64,
}

/// One allowed next hop of a head packet as the routing function listed it — the VC class it
/// named (physical VCs `vc * vcs_per_class ..` of it), the state after it — but with `link`
/// rewritten to the local output port the hop leaves by (the ejection port at the packet's
/// destination): a router lists a packet's hops straight into its candidates, with no copy.
type Cand = Hop;

impl Cand {
    /// The local output port of a candidate (its `link`, as `route` rewrote it).
    fn out(&self) -> u32 {
        self.link
    }
}

#[derive(Debug, Clone, Copy)]
struct Request {
    input: u32,
    vc: u32,
    cand: u32,
    out: u32,
    /// The physical VC downstream that the packet is allocated.
    out_vc: u8,
    /// Generation cycle of the requesting packet (oldest-first arbitration).
    created: u64,
}

/// Per-thread scratch space, reused every cycle.
#[derive(Default)]
pub(crate) struct Scratch {
    requests: Vec<Request>,
    winner: Vec<u32>,
    /// Queues whose head packet takes its VC ahead of the switch this cycle, by age.
    ahead: Vec<(u64, usize)>,
    /// The inputs an allocation round visits after the first, a bit each.
    visit: Vec<u64>,
}

/// The set bits of `word`, lowest first (queues of an input, inputs of a word of `busy_inputs`).
#[inline]
fn set_bits(mut word: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let bit = word.trailing_zeros();
            word &= word - 1;
            bit
        })
    })
}

/// Whether a downstream VC with `free` credits, among VCs `held` (a bit each), can take a
/// packet needing `need` of them.
#[inline]
fn vc_open(free: u32, need: u32, held: u64, vc: usize) -> bool {
    free >= need && held >> vc & 1 == 0
}

/// The packets sent into a downstream VC whose credits are not back, oldest first: whether each
/// goes on past that router, and how many do (read at every VC allocation ahead of the switch).
#[derive(Debug, Clone, Default)]
struct SentInto {
    on: VecDeque<bool>,
    going_on: u32,
}

impl SentInto {
    fn push(&mut self, goes_on: bool) {
        self.on.push_back(goes_on);
        self.going_on += goes_on as u32;
    }

    /// The oldest packet's credits are back.
    fn pop(&mut self) {
        let goes_on = self.on.pop_front().unwrap_or(false);
        self.going_on -= goes_on as u32;
    }
}

/// An input port's allocation state (kept together: the allocator reads it every cycle).
#[derive(Debug, Clone, Copy, Default)]
struct InputPort {
    /// Queues (VCs, or injection queues) holding a packet, a bit each.
    mask: u64,
    /// Tick at which the port has read every packet granted to it.
    free: u64,
    /// Round-robin pointer over its queues.
    rr: u32,
}

/// An output port's allocation state.
#[derive(Debug, Clone, Copy, Default)]
struct OutputPort {
    /// Tick at which its link has sent every packet granted to it.
    free: u64,
    /// Round-robin pointer over the inputs.
    rr: u32,
}

/// A grant being carried out: the request, its queue, and its input and output ports.
struct Grant {
    r: Request,
    q: usize,
    input: Port,
    output: Port,
}

/// The allocation options a cycle's requests follow (read from the configuration once a cycle).
#[derive(Clone, Copy)]
struct Rules {
    /// The first tick of the next cycle.
    next_tick: u64,
    flit_alloc: bool,
    oldest: bool,
    vc_ahead: bool,
}

/// Where VC allocation ahead of the switch stands for a head packet that holds no VC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reserving {
    /// To be tried (a new head, or one not tried yet).
    Open,
    /// Found no downstream VC with room: tried again once one of its `wakes` is credited.
    Blocked,
    /// At its destination: the ejection port has no VC to reserve (it takes its hop with the
    /// switch).
    Ejecting,
}

/// Marks a head packet that holds no hop.
const NO_HOP: u32 = u32::MAX;

/// What allocation reads of a queue every cycle, kept together rather than behind the queue's
/// own storage: the buffer's occupancy, the head packet's state and the head packet itself
/// (routing, requesting and granting it read the record its arrival wrote, not a buffer of
/// its own; at light load most queues never hold a second packet).
#[derive(Debug, Clone, Copy)]
struct Head {
    /// Cycle at which the head packet may be forwarded (`u64::MAX`: empty queue).
    ready: u64,
    /// Flits in the buffer, and packets in the queue.
    occupancy: u32,
    packets: u32,
    /// Under flit allocation, the head packet's flits gone (those present here are its
    /// `arrived`).
    sent: u32,
    /// Under flit allocation, once its head flit has left: the hop the head packet holds (index
    /// into `cands`, `NO_HOP` before), that hop's output and the downstream VC.
    hop: u32,
    hop_out: u32,
    out_vc: u8,
    /// Under VC allocation ahead of the switch, what reserving a VC came to while the head packet
    /// holds none.
    reserving: Reserving,
    /// The head packet, its `arrived` kept up to date as its flits come in.
    packet: Packet,
}

impl Head {
    const EMPTY: Head = Head {
        ready: u64::MAX,
        occupancy: 0,
        packets: 0,
        sent: 0,
        hop: NO_HOP,
        hop_out: 0,
        out_vc: 0,
        reserving: Reserving::Open,
        packet: Packet::NONE,
    };

    /// Makes `packet` the head, to leave no earlier than cycle `ready`.
    fn take(&mut self, packet: &Packet, ready: u64) {
        self.packet = *packet;
        self.ready = ready;
        self.sent = 0;
        self.hop = NO_HOP;
        self.reserving = Reserving::Open;
    }
}

pub(crate) struct Router {
    pub id: u32,
    /// Index among the chips that exchange traffic (`u32::MAX`: none).
    pub endpoint: u32,
    n_in: u32,
    n_out: u32,
    /// Physical VCs per port.
    vcs: u32,
    vcs_per_class: u32,
    in_start: u32,
    out_start: u32,
    /// Packets per (input port, VC) behind the head packet (which is in `heads`); the injection
    /// port's "VCs" are its injection queues.
    queues: Vec<VecDeque<Packet>>,
    heads: Vec<Head>,
    /// For each queue whose head packet is blocked, the downstream VCs whose credits could let
    /// it reserve one (a bit each, `(output port, VC)` slot modulo 64).
    wakes: Vec<u64>,
    /// The allowed hops of each queue's head packet (empty until it is routed).
    cands: Vec<Vec<Cand>>,
    inputs: Vec<InputPort>,
    /// Inputs holding a packet, a bit each: allocation visits only these (a RailX router has
    /// some 40 inputs, most of them empty at any time, and reading each one's record every cycle
    /// was the largest cost of a large network's step).
    busy_inputs: Vec<u64>,
    outputs: Vec<OutputPort>,
    /// With speedup: tick at which each output's crossbar port has taken every packet granted
    /// to it (without, the crossbar port is the link: the output's `free`; empty).
    xbar_free: Vec<u64>,
    /// Free flits of each downstream (output port, VC) buffer.
    credits: Vec<u32>,
    pub sent_flits: Vec<u64>,
    /// Source queues, one per injection queue (none for a router without a chip).
    sources: Vec<VecDeque<SourceMsg>>,
    /// Messages in all source queues (kept here so an idle router need not look at its queues).
    source_msgs: u32,
    /// Source queues holding a message, a bit each (a chip has up to 64, most of them empty).
    waiting: u64,
    cursor: u32,
    /// Under `Selection::Balanced`, the hop listed first for the next packet routed here.
    tie_turn: u32,
    finite_sent: u32,
    ready: BinaryHeap<Reverse<(u64, u32)>>,
    rng: Stream,
    buffered: u32,
    /// A chip: its last input is the injection port and its last output the ejection port.
    has_host: bool,
    /// Downstream VCs of each output held by a packet whose tail has not left (a bit per VC;
    /// none under packet allocation).
    out_held: Vec<u64>,
    /// Flits an output's queue may hold besides a packet it takes (`output_queue_flits`).
    queue_flits: u64,
    /// Under VC allocation ahead of the switch, for each downstream (output port, VC): the
    /// packets sent into it whose credits are not back (empty otherwise). CNSim counts a VC
    /// empty when none of them goes on past that router.
    through: Vec<SentInto>,
    /// Downstream VCs whose credits grew since VC allocation ahead of the switch last ran (a bit
    /// each, slot modulo 64): the blocked head packets it tries again.
    credited: u64,
}

impl Router {
    pub fn new(id: u32, endpoint: u32, sh: &Shared, mut rng: Stream) -> Router {
        let f = sh.fabric;
        let (in_start, out_start) = (f.in_start[id as usize], f.out_start[id as usize]);
        let n_in = f.in_start[id as usize + 1] - in_start;
        let n_out = f.out_start[id as usize + 1] - out_start;
        let vcs = sh.vcs;
        let has_host = n_out > 0 && f.outs[(out_start + n_out - 1) as usize].link == NO_LINK;
        let injection_queues = match (has_host, sh.config.injection_queues) {
            (false, _) => 0,
            (true, InjectionQueues::Single) => 1,
            (true, InjectionQueues::PerMessage) => MAX_VCS as u32,
        };
        let queues = if has_host {
            ((n_in - 1) * vcs + injection_queues) as usize
        } else {
            (n_in * vcs) as usize
        };
        // Each chip starts its round of the all-to-all at a random offset: in lockstep, every
        // chip of a node would send to the same node at once.
        let peers = sh
            .destinations
            .as_ref()
            .map_or(0, |d| d.chips.len() as u32 - 1);
        let cursor = if endpoint != u32::MAX && peers > 0 {
            1 + rng.below(peers)
        } else {
            1
        };
        Router {
            id,
            endpoint,
            n_in,
            n_out,
            vcs,
            vcs_per_class: sh.vcs_per_class,
            in_start,
            out_start,
            queues: vec![VecDeque::new(); queues],
            heads: vec![Head::EMPTY; queues],
            wakes: vec![0; queues],
            cands: vec![Vec::new(); queues],
            inputs: vec![InputPort::default(); n_in as usize],
            busy_inputs: vec![0; n_in.div_ceil(64) as usize],
            outputs: vec![OutputPort::default(); n_out as usize],
            xbar_free: match sh.config.output_queue_flits() {
                0 => Vec::new(),
                _ => vec![0; n_out as usize],
            },
            credits: vec![sh.config.buffer_flits; (n_out * vcs) as usize],
            sent_flits: vec![0; n_out as usize],
            sources: vec![VecDeque::new(); injection_queues as usize],
            source_msgs: 0,
            waiting: 0,
            cursor,
            tie_turn: 0,
            finite_sent: 0,
            ready: BinaryHeap::new(),
            rng,
            buffered: 0,
            has_host,
            out_held: vec![0; n_out as usize],
            queue_flits: sh.config.output_queue_flits() as u64,
            through: match sh.config.vc_allocation {
                VcAllocation::Ahead => vec![SentInto::default(); (n_out * vcs) as usize],
                VcAllocation::WithSwitch => Vec::new(),
            },
            credited: 0,
        }
    }

    /// Queues of input port `input`: its VCs, or the injection port's injection queues.
    fn port_queues(&self, input: u32) -> u32 {
        if self.has_host && input == self.n_in - 1 {
            self.sources.len() as u32
        } else {
            self.vcs
        }
    }

    /// Marks queue `queue` of input `input` as holding a packet.
    #[inline(always)]
    fn mark_busy(&mut self, input: u32, queue: u32) {
        self.inputs[input as usize].mask |= 1 << queue;
        self.busy_inputs[(input / 64) as usize] |= 1 << (input % 64);
    }

    /// Marks queue `queue` of input `input` as empty.
    #[inline(always)]
    fn mark_empty(&mut self, input: u32, queue: u32) {
        let mask = &mut self.inputs[input as usize].mask;
        *mask &= !(1 << queue);
        if *mask == 0 {
            self.busy_inputs[(input / 64) as usize] &= !(1 << (input % 64));
        }
    }

    /// Schedules DAG message `msg` for injection at `cycle`.
    pub fn schedule(&mut self, cycle: u64, msg: u32) {
        self.ready.push(Reverse((cycle, msg)));
    }

    /// Whether the router has nothing to do this cycle apart from drawing traffic.
    fn idle(&self, cycle: u64) -> bool {
        self.buffered == 0
            && self.source_msgs == 0
            && self.ready.peek().is_none_or(|r| r.0 .0 > cycle)
    }

    /// One cycle of this router after its due events: traffic, allocation. Returns whether a
    /// packet moved.
    // Inlined into the partition's loop over its routers, which then reads the shared settings
    // once for all of them (left to the compiler, it stops inlining it as the function grows:
    // some 100M more instructions of 4.3G in a run of the cnsim preset).
    #[inline(always)]
    pub fn step(
        &mut self,
        cycle: u64,
        sh: &Shared,
        post: &mut Post,
        counters: &mut Counters,
        scratch: &mut Scratch,
    ) -> Result<bool> {
        self.generate(cycle, sh, counters);
        if self.idle(cycle) {
            return Ok(false);
        }
        self.release_ready(cycle, sh, counters);
        for queue in set_bits(self.waiting) {
            self.refill_injection(cycle, sh, queue as usize, cycle);
        }
        if self.buffered == 0 {
            return Ok(false);
        }
        self.allocate(cycle, sh, post, counters, scratch)
    }

    /// Applies an event due this cycle.
    pub fn apply(
        &mut self,
        event: &Event,
        cycle: u64,
        sh: &Shared,
        post: &mut Post,
        counters: &mut Counters,
    ) -> Result<()> {
        match event {
            &Event::Arrive { port, vc, packet } => {
                let q = self.fill(port, vc, packet.arrived, sh, counters)?;
                self.push(q, packet);
                self.mark_busy(port, vc as u32);
            }
            &Event::Flit { port, vc } => {
                let q = self.fill(port, vc, 1, sh, counters)?;
                // The flit belongs to the last packet in the VC: the head when it is alone.
                match self.heads[q].packets {
                    1 => self.heads[q].packet.arrived += 1,
                    _ => {
                        self.queues[q]
                            .back_mut()
                            .expect("a flit follows its head into the VC")
                            .arrived += 1
                    }
                }
            }
            &Event::Credit { port, vc, flits } => {
                let slot = (port * self.vcs + vc as u32) as usize;
                // One credit event per packet, in the order the packets left that VC: the order
                // they were sent into it.
                if let Some(sent) = self.through.get_mut(slot) {
                    sent.pop();
                }
                self.credited |= 1 << (slot % 64);
                let c = &mut self.credits[slot];
                *c += flits;
                if *c > sh.config.buffer_flits {
                    return Err(RailxError::internal(
                        format!("router {} output {port} vc {vc}", self.id),
                        "credits exceed the downstream buffer",
                    ));
                }
            }
            Event::Eject { packet } => counters.eject(packet, cycle, sh, post),
            Event::Finish { out, vc, packet } => {
                let slot = (out * self.vcs + *vc as u32) as usize;
                self.credits[slot] += packet.flits;
                self.credited |= 1 << (slot % 64);
                counters.eject(packet, cycle, sh, post);
            }
            &Event::DepDone { msg, done } => {
                if let Some(dag) = &sh.dag {
                    if dag.pending[msg as usize].fetch_sub(1, std::sync::atomic::Ordering::Relaxed)
                        == 1
                    {
                        let at = done
                            .saturating_add(dag.delay_cycles[msg as usize])
                            .max(cycle);
                        self.schedule(at, msg);
                    }
                }
            }
        }
        Ok(())
    }

    /// Counts `flits` arriving into input `port`'s VC `vc`, checking its capacity; returns the
    /// queue.
    #[inline(always)]
    fn fill(
        &mut self,
        port: u32,
        vc: u8,
        flits: u32,
        sh: &Shared,
        counters: &mut Counters,
    ) -> Result<usize> {
        let q = (port * self.vcs + vc as u32) as usize;
        let occupancy = &mut self.heads[q].occupancy;
        *occupancy += flits;
        if *occupancy > sh.config.buffer_flits {
            return Err(RailxError::internal(
                format!("router {} input {port} vc {vc}", self.id),
                format!(
                    "buffer holds {} flits, over its capacity of {}",
                    occupancy, sh.config.buffer_flits
                ),
            ));
        }
        counters.max_occupancy = counters.max_occupancy.max(*occupancy);
        Ok(q)
    }

    /// Draws this cycle's new packets (rate traffic) or the next finite all-to-all message.
    fn generate(&mut self, cycle: u64, sh: &Shared, counters: &mut Counters) {
        let Some(dest) = sh.destinations.as_ref() else {
            return;
        };
        if self.endpoint == u32::MAX || !dest.sends(self.endpoint) {
            return;
        }
        let flits = sh.config.packet_flits as u64;
        match sh.workload {
            Workload::Rate {
                whole_packets,
                extra_packet,
            } => {
                let n = whole_packets + (self.rng.unit() < extra_packet) as u32;
                for _ in 0..n {
                    let dst = dest.next(self.endpoint, &mut self.cursor, &mut self.rng);
                    self.push_source(dst, flits, NO_MSG, cycle, sh, counters);
                }
            }
            Workload::Finite { flits_per_pair } => {
                // One message in flight per injection queue, the next drawn when one leaves.
                let peers = dest.chips.len() as u32 - 1;
                while (self.source_msgs as usize) < self.sources.len() && self.finite_sent < peers {
                    self.finite_sent += 1;
                    let dst = dest.next(self.endpoint, &mut self.cursor, &mut self.rng);
                    let flits = flits_per_pair as u64;
                    self.push_source(dst, flits, NO_MSG, cycle, sh, counters);
                }
            }
            Workload::Dag => {}
        }
    }

    fn push_source(
        &mut self,
        dst: u32,
        flits: u64,
        msg: u32,
        cycle: u64,
        sh: &Shared,
        counters: &mut Counters,
    ) {
        counters.created += flits;
        if sh.measuring(cycle) {
            counters.offered += flits;
        }
        let queue = self.source_queue();
        self.source_msgs += 1;
        self.waiting |= 1 << queue;
        self.sources[queue].push_back(SourceMsg {
            dst,
            flits_left: flits,
            msg,
            created: cycle,
        });
    }

    /// The source queue a new message joins: an idle one while there is one (no message waiting
    /// in it and no packet in its injection queue: a queue whose injection queue still holds an
    /// earlier message's packet would make the new message wait for that packet's output), else
    /// the least busy; the first on ties, for determinism.
    fn source_queue(&self) -> usize {
        let injecting = self.inputs[(self.n_in - 1) as usize].mask;
        let first_idle = (!(self.waiting | injecting)).trailing_zeros() as usize;
        if first_idle < self.sources.len() {
            return first_idle;
        }
        (0..self.sources.len())
            .min_by_key(|&q| self.sources[q].len())
            .unwrap_or(0)
    }

    /// Moves the DAG messages due by `cycle` into the source queues.
    fn release_ready(&mut self, cycle: u64, sh: &Shared, counters: &mut Counters) {
        while let Some(&Reverse((at, msg))) = self.ready.peek() {
            if at > cycle {
                break;
            }
            self.ready.pop();
            let Some(dag) = &sh.dag else { continue };
            let (dst, flits) = (dag.dst[msg as usize], dag.flits[msg as usize]);
            self.push_source(dst, flits, msg, cycle, sh, counters);
        }
    }

    /// Puts the next packet of source queue `queue` into its injection queue when that is empty,
    /// to leave no earlier than `earliest`.
    fn refill_injection(&mut self, cycle: u64, sh: &Shared, queue: usize, earliest: u64) {
        let port = self.n_in - 1;
        let q = (port * self.vcs) as usize + queue;
        if self.heads[q].packets != 0 {
            return;
        }
        let Some(head) = self.sources[queue].front_mut() else {
            return;
        };
        let flits = head.flits_left.min(sh.config.packet_flits as u64);
        head.flits_left -= flits;
        let packet = Packet {
            dst: head.dst,
            flits: flits as u32,
            arrived: flits as u32,
            msg: head.msg,
            created: head.created,
            head_ready: (head.created
                + sh.config.router_delay_cycles as u64
                + sh.config.packetization_cycles as u64)
                .max(earliest),
            tail_in: cycle * TICKS,
            state: RouteState::start(),
        };
        if head.flits_left == 0 {
            self.sources[queue].pop_front();
            self.source_msgs -= 1;
            if self.sources[queue].is_empty() {
                self.waiting &= !(1 << queue);
            }
        }
        self.push(q, packet);
        self.mark_busy(port, queue as u32);
    }

    /// When a packet that reached the head of input `input`'s queue (ready by itself at
    /// `ready`) may leave: `head_delay_cycles` after the packet ahead of it has left.
    fn after_head_delay(&self, input: u32, ready: u64, sh: &Shared) -> u64 {
        match sh.config.head_delay_cycles as u64 {
            0 => ready,
            delay => ready.max(self.inputs[input as usize].free.div_ceil(TICKS) + delay),
        }
    }

    fn push(&mut self, q: usize, packet: Packet) {
        let head = &mut self.heads[q];
        if head.packets == 0 {
            head.take(&packet, packet.head_ready);
        } else {
            self.queues[q].push_back(packet);
        }
        head.packets += 1;
        self.buffered += 1;
    }

    /// Lists the allowed hops of queue `q`'s head packet into its candidates, empty until then
    /// (once per packet per router).
    fn route(&mut self, q: usize, sh: &Shared) -> Result<()> {
        let front = &self.heads[q].packet;
        let (dst, state) = (front.dst, front.state);
        let cands = &mut self.cands[q];
        if dst == self.id {
            // The ejection port, the last output.
            cands.push(Cand {
                link: self.n_out - 1,
                vc: 0,
                state,
            });
            return Ok(());
        }
        sh.routing.next_hops(self.id, dst, &state, cands);
        if cands.is_empty() {
            return Err(self.broken_routing(
                sh,
                format!("offers no next hop at vertex {} toward chip {dst}", self.id),
            ));
        }
        if sh.selection == Selection::Random && cands.len() > 1 {
            let pick = cands[self.rng.below(cands.len() as u32) as usize];
            cands.clear();
            cands.push(pick);
        }
        if sh.selection == Selection::Balanced && cands.len() > 1 {
            let first = self.tie_turn as usize % cands.len();
            cands.rotate_left(first);
            self.tie_turn = self.tie_turn.wrapping_add(1);
        }
        let classes = self.vcs / self.vcs_per_class;
        for cand in cands.iter_mut() {
            // Below `out_start` wraps round to a large value: one comparison tests both ends.
            let out = sh.fabric.link_out_port[cand.link as usize].wrapping_sub(self.out_start);
            if out >= self.n_out || cand.vc as u32 >= classes {
                let (link, vc) = (cand.link, cand.vc);
                return Err(self.broken_routing(
                    sh,
                    format!(
                        "at vertex {} offers link {link} on VC {vc}, which does not leave this vertex or exceeds its {classes} VCs",
                        self.id
                    ),
                ));
            }
            cand.link = out;
        }
        Ok(())
    }

    /// The error for a routing function that broke its contract here; out of line, as `route`
    /// runs once per packet per router.
    #[cold]
    #[inline(never)]
    fn broken_routing(&self, sh: &Shared, message: String) -> RailxError {
        RailxError::verification(format!("routing {}", sh.routing.name()), message)
    }

    /// Physical VCs of output `out` that a hop of VC class `class` may be allocated.
    fn class_vcs(&self, out: u32, class: u8) -> std::ops::Range<usize> {
        let first = (out * self.vcs + class as u32 * self.vcs_per_class) as usize;
        first..first + self.vcs_per_class as usize
    }

    /// Whether downstream VC `vc` of output `out` can take a packet of `flits`: room for all of
    /// it (virtual cut-through) or for a flit (wormhole), and not held by another packet's flits.
    #[inline]
    fn vc_takes(&self, out: u32, vc: usize, flits: u32, sh: &Shared) -> bool {
        let free = self.credits[(out * self.vcs) as usize + vc];
        vc_open(
            free,
            sh.config.flits_to_take_vc(flits),
            self.out_held[out as usize],
            vc,
        )
    }

    /// Whether the next flit of a packet holding downstream VC `vc` of output `out` has a
    /// credit: always under cut-through (the packet's credits were taken with the VC).
    #[inline]
    fn flit_credit(&self, out: u32, vc: u8, sh: &Shared) -> bool {
        sh.config.flow_control == FlowControl::CutThrough
            || self.credits[(out * self.vcs + vc as u32) as usize] > 0
    }

    /// Whether output `out` can take a packet this cycle: its crossbar port is free and its
    /// link's queue has room for a whole packet.
    #[inline]
    fn output_open(&self, out: u32, next_tick: u64, sh: &Shared) -> bool {
        let link_free = self.outputs[out as usize].free;
        match self.queue_flits {
            // Input-queued: the crossbar port is the link, which must be done by the end of this
            // cycle.
            0 => link_free < next_tick,
            // The queue holds at most `queue` flits besides this packet from now on.
            queue => {
                let tpf = sh.fabric.outs[(self.out_start + out) as usize].ticks_per_flit;
                link_free <= next_tick - TICKS + queue * tpf
                    && self.xbar_free[out as usize] < next_tick
            }
        }
    }

    /// The hop the head of queue `q` would take now and the physical VC downstream. Among the
    /// open outputs whose VC class has a VC that can take the packet, the least occupied hop
    /// wins: the one whose class has the most free credits over all its VCs (the first hop listed
    /// on ties); within it, the VC with most free credits (the lowest on ties). The class is
    /// compared, not its best VC: with several VCs per class every link but the busiest keeps an
    /// idle VC with a full buffer, so per-VC credits would tie every hop and send all traffic the
    /// first listed way. With one VC per class the two are the same.
    ///
    /// A hop whose class has every credit free cannot be beaten by one listed after it, so the
    /// search stops there: under light load, at the first open hop of the many lanes a RailX
    /// mesh hop offers.
    fn choose(&self, q: usize, flits: u32, next_tick: u64, sh: &Shared) -> Option<(u32, u8)> {
        let mut best: Option<(u32, u8, u32)> = None;
        let need = sh.config.flits_to_take_vc(flits);
        let all_free = self.vcs_per_class * sh.config.buffer_flits;
        for (k, cand) in self.cands[q].iter().enumerate() {
            if !self.output_open(cand.out(), next_tick, sh) {
                continue;
            }
            if cand.out() == self.n_out - 1 && self.has_host {
                // Ejection: no downstream buffer, and it is the only hop offered.
                return Some((k as u32, 0));
            }
            let base = (cand.out() * self.vcs) as usize;
            let held = self.out_held[cand.out() as usize];
            let mut class_free = 0;
            let mut pick: Option<(u8, u32)> = None;
            for slot in self.class_vcs(cand.out(), cand.vc) {
                let free = self.credits[slot];
                class_free += free;
                if vc_open(free, need, held, slot - base) && pick.is_none_or(|(_, f)| free > f) {
                    pick = Some(((slot - base) as u8, free));
                }
            }
            if let Some((vc, _)) = pick {
                if best.is_none_or(|(_, _, f)| class_free > f) {
                    best = Some((k as u32, vc, class_free));
                    if class_free == all_free {
                        break;
                    }
                }
            }
        }
        best.map(|(k, vc, _)| (k, vc))
    }

    /// VC allocation ahead of the switch (CNSim's): the first hop listed whose VC class has an
    /// empty VC with room for the packet, else the first with room; its credits are taken now
    /// and the packet keeps that hop. None at the ejection port (no VC) or without room. Empty
    /// as CNSim counts it: no packet in the VC or on its way there goes on past the next router
    /// (its queue holds only the packets sent on; credits taken ahead do not count).
    ///
    /// Without room the head is marked blocked, with the VCs it could take.
    fn reserve_vc(&mut self, q: usize, flits: u32) -> Option<(u32, u8, u32)> {
        let cands = &self.cands[q];
        // The ejection port is the only hop offered to a packet at its destination.
        if self.has_host && cands[0].out() == self.n_out - 1 {
            self.heads[q].reserving = Reserving::Ejecting;
            return None;
        }
        let mut pick: Option<(usize, usize)> = None;
        let mut wake = 0u64;
        'hops: for (k, cand) in cands.iter().enumerate() {
            for slot in self.class_vcs(cand.out(), cand.vc) {
                wake |= 1 << (slot % 64);
                if self.credits[slot] < flits {
                    continue;
                }
                if self.through[slot].going_on == 0 {
                    pick = Some((k, slot));
                    break 'hops;
                }
                pick = pick.or(Some((k, slot)));
            }
        }
        let Some((k, slot)) = pick else {
            (self.heads[q].reserving, self.wakes[q]) = (Reserving::Blocked, wake);
            return None;
        };
        self.credits[slot] -= flits;
        let out = self.cands[q][k].out();
        let out_vc = (slot - (out * self.vcs) as usize) as u8;
        let head = &mut self.heads[q];
        (head.hop, head.hop_out, head.out_vc) = (k as u32, out, out_vc);
        Some((k as u32, out_vc, out))
    }

    /// VC allocation ahead of the switch for every head packet ready by `cycle` that holds no VC
    /// yet, oldest first, whether or not its input port is free (CNSim allocates a packet's VC
    /// as soon as it heads its VC, then waits for the switch).
    ///
    /// A blocked head (one that found no room) is tried again only once one of the VCs it could
    /// take has been credited: until then it would find no room again, so skipping it changes
    /// nothing. Its outcome depends only on its hops and size, fixed while it heads its queue (a
    /// new head starts open), and on those VCs' credits, which grow only by the `Credit` and
    /// `Finish` events that mark `credited` and otherwise only shrink. Which VC it would pick
    /// (`through`) does not decide whether it finds one, and a failed attempt changes no state,
    /// so leaving it out of the age order moves no other head's outcome. A head at the ejection
    /// port never reserves a VC.
    fn reserve_ahead(&mut self, cycle: u64, sh: &Shared, scratch: &mut Scratch) -> Result<()> {
        scratch.ahead.clear();
        for (word, &busy) in self.busy_inputs.iter().enumerate() {
            for input in set_bits(busy).map(|bit| word as u32 * 64 + bit) {
                for vc in set_bits(self.inputs[input as usize].mask) {
                    let q = (input * self.vcs + vc) as usize;
                    let head = self.heads[q];
                    if head.ready <= cycle
                        && head.hop == NO_HOP
                        && match head.reserving {
                            Reserving::Open => true,
                            Reserving::Blocked => self.wakes[q] & self.credited != 0,
                            Reserving::Ejecting => false,
                        }
                    {
                        scratch.ahead.push((head.packet.created, q));
                    }
                }
            }
        }
        // Every head credited since is tried now: the rest of the cycle only takes credits.
        self.credited = 0;
        scratch.ahead.sort_unstable();
        for i in 0..scratch.ahead.len() {
            let q = scratch.ahead[i].1;
            if self.cands[q].is_empty() {
                self.route(q, sh)?;
            }
            self.reserve_vc(q, self.heads[q].packet.flits);
        }
        Ok(())
    }

    fn allocate(
        &mut self,
        cycle: u64,
        sh: &Shared,
        post: &mut Post,
        counters: &mut Counters,
        scratch: &mut Scratch,
    ) -> Result<bool> {
        let rules = Rules {
            next_tick: (cycle + 1) * TICKS,
            flit_alloc: sh.config.switch_allocation == SwitchAllocation::Flit,
            oldest: sh.config.arbitration == Arbitration::Oldest,
            vc_ahead: sh.config.vc_allocation == VcAllocation::Ahead,
        };
        let Rules {
            next_tick, oldest, ..
        } = rules;
        let mut moved = false;
        scratch
            .winner
            .resize(scratch.winner.len().max(self.n_out as usize), u32::MAX);
        if rules.vc_ahead {
            self.reserve_ahead(cycle, sh, scratch)?;
        }
        // Further rounds let losers try the outputs still free, and ports faster than a packet
        // per cycle take several packets. Within a cycle outputs, inputs and credits only fill
        // up, so an input with no request in a round has none in the next unless a grant moved
        // it: after the first, a round visits only the inputs that requested in the one before.
        for round in 0..sh.config.alloc_iterations.max(4) {
            scratch.requests.clear();
            for word in 0..self.busy_inputs.len() {
                let inputs = match round {
                    0 => self.busy_inputs[word],
                    _ => scratch.visit[word],
                };
                for input in set_bits(inputs).map(|bit| word as u32 * 64 + bit) {
                    self.request(input, cycle, rules, sh, scratch)?;
                }
            }
            if scratch.requests.is_empty() {
                break;
            }
            // Output arbitration: round-robin over inputs from the output's pointer.
            let n_in = self.n_in;
            for (i, r) in scratch.requests.iter().enumerate() {
                // Distance from the output's pointer, without a division.
                let rank = |input: u32| {
                    let d = input + n_in - self.outputs[r.out as usize].rr;
                    if d >= n_in {
                        d - n_in
                    } else {
                        d
                    }
                };
                let w = &mut scratch.winner[r.out as usize];
                let wins = *w == u32::MAX || {
                    let other = &scratch.requests[*w as usize];
                    let before = rank(r.input) < rank(other.input);
                    match oldest {
                        false => before,
                        true => (r.created, !before) < (other.created, before),
                    }
                };
                if wins {
                    *w = i as u32;
                }
            }
            let (mut spare, mut lost) = (false, false);
            for i in 0..scratch.requests.len() {
                let r = scratch.requests[i];
                if scratch.winner[r.out as usize] != i as u32 {
                    lost = true;
                    continue;
                }
                scratch.winner[r.out as usize] = u32::MAX;
                match sh.config.switch_allocation {
                    SwitchAllocation::Packet => self.grant(r, cycle, sh, post, counters)?,
                    SwitchAllocation::Flit => self.grant_flit(r, cycle, sh, post, counters),
                }
                moved = true;
                spare |= self.inputs[r.input as usize].free < next_tick
                    || self.output_open(r.out, next_tick, sh);
            }
            if !(spare || lost && round + 1 < sh.config.alloc_iterations) {
                break;
            }
            scratch.visit.clear();
            scratch.visit.resize(self.busy_inputs.len(), 0);
            for r in &scratch.requests {
                scratch.visit[(r.input / 64) as usize] |= 1 << (r.input % 64);
            }
        }
        Ok(moved)
    }

    /// Adds input `input`'s request this cycle, if it has one: its first VC in round-robin
    /// order whose head packet can take a hop now, or under oldest-first arbitration the oldest
    /// such packet (the first in round-robin order on ties).
    #[inline(always)]
    fn request(
        &mut self,
        input: u32,
        cycle: u64,
        rules: Rules,
        sh: &Shared,
        scratch: &mut Scratch,
    ) -> Result<()> {
        let Rules {
            next_tick,
            flit_alloc,
            oldest,
            vc_ahead,
        } = rules;
        let mask = self.inputs[input as usize].mask;
        if self.inputs[input as usize].free >= next_tick {
            return Ok(());
        }
        let start = self.inputs[input as usize].rr;
        for vc in set_bits(mask.rotate_right(start)).map(|bit| (bit + start) & 63) {
            let q = (input * self.vcs + vc) as usize;
            let head = self.heads[q];
            // Under flit allocation the head packet's next flit must have arrived.
            if head.ready > cycle || flit_alloc && head.sent >= head.packet.arrived {
                continue;
            }
            let hop = if head.hop != NO_HOP {
                (self.output_open(head.hop_out, next_tick, sh)
                    && self.flit_credit(head.hop_out, head.out_vc, sh))
                .then_some((head.hop, head.out_vc, head.hop_out))
            } else {
                if self.cands[q].is_empty() {
                    self.route(q, sh)?;
                }
                match (vc_ahead && head.reserving == Reserving::Open)
                    .then(|| self.reserve_vc(q, head.packet.flits))
                    .flatten()
                {
                    Some((cand, out_vc, out)) => self
                        .output_open(out, next_tick, sh)
                        .then_some((cand, out_vc, out)),
                    // A blocked head finds no VC with the switch either: under VC allocation
                    // ahead (packet allocation, cut-through) that needs the same room as
                    // reserving, and none of its VCs has been credited since it found none.
                    None if self.heads[q].reserving == Reserving::Blocked => None,
                    None => self
                        .choose(q, head.packet.flits, next_tick, sh)
                        .map(|(cand, out_vc)| (cand, out_vc, self.cands[q][cand as usize].out())),
                }
            };
            if let Some((cand, out_vc, out)) = hop {
                let request = Request {
                    input,
                    vc,
                    cand,
                    out,
                    out_vc,
                    created: head.packet.created,
                };
                if !oldest {
                    scratch.requests.push(request);
                    break;
                }
                // Oldest first: every VC of the input is looked at, the first listed
                // (round-robin order) kept on ties.
                match scratch.requests.last_mut() {
                    Some(last) if last.input == input => {
                        if request.created < last.created {
                            *last = request;
                        }
                    }
                    _ => scratch.requests.push(request),
                }
            }
        }
        Ok(())
    }

    /// Grants queue `r`'s head packet its output: the whole packet crosses and leaves.
    fn grant(
        &mut self,
        r: Request,
        cycle: u64,
        sh: &Shared,
        post: &mut Post,
        counters: &mut Counters,
    ) -> Result<()> {
        let g = self.begin_grant(r, sh);
        let packet = self.heads[g.q].packet;
        let state = self.cands[g.q][r.cand as usize].state;
        let flits = packet.flits as u64;
        let (out_tpf, in_tpf) = (g.output.ticks_per_flit, g.input.ticks_per_flit);
        // The crossing: no faster than the slower of the two crossbar ports, and not done before
        // the packet's own tail has arrived. The injection port reads at the chip's injection
        // rate: speedup does not raise what a chip can inject.
        let speedup = sh.config.switch_speedup as u64;
        let (xbar_tpf, read_tpf) = match (speedup, g.input.link) {
            (1, _) => (out_tpf, in_tpf),
            (_, NO_LINK) => ((out_tpf / speedup).max(1), in_tpf),
            _ => ((out_tpf / speedup).max(1), (in_tpf / speedup).max(1)),
        };
        let xbar_free = match speedup {
            1 => self.outputs[r.out as usize].free,
            _ => self.xbar_free[r.out as usize],
        };
        let cross = (cycle * TICKS)
            .max(xbar_free)
            .max(self.inputs[r.input as usize].free);
        let crossed = (cross + flits * xbar_tpf).max(packet.tail_in + xbar_tpf);
        self.inputs[r.input as usize].free = match (sh.config.input_pace, g.input.link) {
            (InputPace::Output, link) if link != NO_LINK => crossed,
            _ => cross + flits * read_tpf,
        };
        if speedup > 1 {
            self.xbar_free[r.out as usize] = crossed;
            let queued = self.outputs[r.out as usize]
                .free
                .saturating_sub(cross)
                .div_ceil(out_tpf)
                + flits;
            if queued > sh.config.output_buffer_flits as u64 {
                return Err(RailxError::internal(
                    format!("router {} output {}", self.id, r.out),
                    format!(
                        "output queue holds {queued} flits, over its capacity of {}",
                        sh.config.output_buffer_flits
                    ),
                ));
            }
        }
        let start = cross.max(self.outputs[r.out as usize].free);
        let end = (start + flits * out_tpf).max(packet.tail_in + out_tpf);
        self.outputs[r.out as usize].free = end;
        // A VC allocated ahead of the switch already holds the packet's credits.
        let reserved = self.heads[g.q].hop != NO_HOP;
        self.retire_head(g.q, r, cycle, sh);
        self.release_input(&g, packet.flits, crossed, sh, post, counters);
        // Counted when the link starts to send it (later than the crossing with output queues).
        if sh.measuring(start / TICKS) {
            self.sent_flits[r.out as usize] += flits;
        }
        if g.output.link == NO_LINK {
            self.eject(packet, end, post);
            return Ok(());
        }
        counters.flit_hops += flits;
        let slot = (r.out * self.vcs + r.out_vc as u32) as usize;
        if !reserved {
            self.credits[slot] -= packet.flits;
        }
        let latency = g.output.latency as u64;
        let head_arrival = (start + out_tpf).div_ceil(TICKS) + latency;
        let tail_in = match sh.config.link_latency {
            LinkLatency::Flits => end + latency * TICKS,
            LinkLatency::Head => end,
        };
        if sh.config.ejection == Ejection::OnArrival && packet.dst == g.output.peer {
            post.send(self.finish(r, head_arrival, tail_in, packet));
            return Ok(());
        }
        if let Some(sent) = self.through.get_mut(slot) {
            sent.push(packet.dst != g.output.peer);
        }
        post.send(self.arrival(&g, head_arrival, tail_in, packet, state, sh));
        Ok(())
    }

    /// Grants queue `r`'s head packet its next flit: the head takes the downstream VC (held until
    /// the tail has left), every flit crosses on its own.
    fn grant_flit(
        &mut self,
        r: Request,
        cycle: u64,
        sh: &Shared,
        post: &mut Post,
        counters: &mut Counters,
    ) {
        let g = self.begin_grant(r, sh);
        let (q, link) = (g.q, g.output.link);
        let queue_head = &mut self.heads[q];
        let head = queue_head.sent == 0;
        if head {
            queue_head.hop = r.cand;
            queue_head.hop_out = r.out;
            queue_head.out_vc = r.out_vc;
            if link != NO_LINK {
                self.out_held[r.out as usize] |= 1 << r.out_vc;
            }
        }
        queue_head.sent += 1;
        let flits = queue_head.packet.flits;
        let tail = queue_head.sent == flits;
        if tail && link != NO_LINK {
            self.out_held[r.out as usize] &= !(1 << r.out_vc);
        }
        // Cut-through takes the packet's credits with its VC, wormhole one per flit.
        let credits = match sh.config.flow_control {
            FlowControl::CutThrough if head => flits,
            FlowControl::CutThrough => 0,
            FlowControl::Wormhole => 1,
        };
        if link != NO_LINK {
            self.credits[(r.out * self.vcs + r.out_vc as u32) as usize] -= credits;
        }
        let start = (cycle * TICKS)
            .max(self.outputs[r.out as usize].free)
            .max(self.inputs[r.input as usize].free);
        let sent = start + g.output.ticks_per_flit;
        self.outputs[r.out as usize].free = sent;
        self.inputs[r.input as usize].free = start + g.input.ticks_per_flit;
        // The packet itself is read only by its head (to send it on, in the hop's routing state)
        // and, at the ejection port, its tail (to eject it).
        let packet = (head || tail && link == NO_LINK).then_some(self.heads[q].packet);
        let hop_state = head.then(|| self.cands[q][r.cand as usize].state);
        if tail {
            self.retire_head(q, r, cycle, sh);
        }
        self.release_input(&g, 1, sent, sh, post, counters);
        if sh.measuring(cycle) {
            self.sent_flits[r.out as usize] += 1;
        }
        if link == NO_LINK {
            if let Some(packet) = packet.filter(|_| tail) {
                self.eject(packet, sent, post);
            }
            return;
        }
        counters.flit_hops += 1;
        let arrival = sent.div_ceil(TICKS) + g.output.latency as u64;
        post.send(if let (Some(packet), Some(state)) = (packet, hop_state) {
            let first = Packet {
                arrived: 1,
                ..packet
            };
            self.arrival(&g, arrival, u64::MAX, first, state, sh)
        } else {
            Outgoing {
                router: g.output.peer,
                time: arrival,
                event: Event::Flit {
                    port: g.output.peer_port,
                    vc: r.out_vc,
                },
            }
        });
    }

    /// Starts the grant of request `r`: its queue and ports, the pointers moved past it.
    #[inline(always)]
    fn begin_grant(&mut self, r: Request, sh: &Shared) -> Grant {
        let q = (r.input * self.vcs + r.vc) as usize;
        self.advance_pointers(r);
        Grant {
            r,
            q,
            input: sh.fabric.ins[(self.in_start + r.input) as usize],
            output: sh.fabric.outs[(self.out_start + r.out) as usize],
        }
    }

    /// Schedules `packet`'s ejection once its last flit has left, by tick `done`.
    #[inline(always)]
    fn eject(&self, packet: Packet, done: u64, post: &mut Post) {
        post.send(Outgoing {
            router: self.id,
            time: done.div_ceil(TICKS),
            event: Event::Eject { packet },
        });
    }

    /// Moves the round-robin pointers past a grant.
    #[inline(always)]
    fn advance_pointers(&mut self, r: Request) {
        let next = |i: u32, n: u32| if i + 1 == n { 0 } else { i + 1 };
        self.inputs[r.input as usize].rr = next(r.vc, self.port_queues(r.input));
        self.outputs[r.out as usize].rr = next(r.input, self.n_in);
    }

    /// Removes the head packet of queue `q` (granted by `r`), all of it gone, and readies the
    /// next: routed and allocated afresh, after the head delay; an injection queue is refilled.
    #[inline(always)]
    fn retire_head(&mut self, q: usize, r: Request, cycle: u64, sh: &Shared) {
        self.cands[q].clear();
        self.buffered -= 1;
        self.heads[q].packets -= 1;
        match self.queues[q].pop_front() {
            Some(next) => {
                let ready = self.after_head_delay(r.input, next.head_ready, sh);
                self.heads[q].take(&next, ready);
            }
            None => {
                self.heads[q] = Head {
                    occupancy: self.heads[q].occupancy,
                    ..Head::EMPTY
                };
                self.mark_empty(r.input, r.vc);
            }
        }
        if sh.fabric.ins[(self.in_start + r.input) as usize].link == NO_LINK {
            let earliest = self.after_head_delay(r.input, cycle, sh);
            self.refill_injection(cycle, sh, r.vc as usize, earliest);
        }
    }

    /// Accounts `flits` that have left grant `g`'s input by tick `left`: injected from the chip,
    /// or freed in the input VC with their credits sent upstream.
    #[inline(always)]
    fn release_input(
        &mut self,
        g: &Grant,
        flits: u32,
        left: u64,
        sh: &Shared,
        post: &mut Post,
        counters: &mut Counters,
    ) {
        if g.input.link == NO_LINK {
            counters.injected += flits as u64;
            return;
        }
        self.heads[g.q].occupancy -= flits;
        post.send(Outgoing {
            router: g.input.peer,
            time: left.div_ceil(TICKS)
                + match sh.config.link_latency {
                    LinkLatency::Flits => g.input.latency as u64,
                    LinkLatency::Head => 0,
                },
            event: Event::Credit {
                port: g.input.peer_port,
                vc: g.r.vc as u8,
                flits,
            },
        });
    }

    /// The delivery of `packet`, granted `r` into its destination chip, without queueing there
    /// (`Ejection::OnArrival`): in the cycle its head would be routed there (`head_arrival`),
    /// its tail in by tick `tail_in` — the cycle after CNSim's, whose last update of the packet
    /// is the one in which the head's latency runs out, as railx counts a delivery at the end
    /// of its cycle.
    #[inline(always)]
    fn finish(&self, r: Request, head_arrival: u64, tail_in: u64, packet: Packet) -> Outgoing {
        Outgoing {
            router: self.id,
            time: head_arrival.max(tail_in.div_ceil(TICKS)),
            event: Event::Finish {
                out: r.out,
                vc: r.out_vc,
                packet,
            },
        }
    }

    /// The arrival of `packet`'s head at the far end of grant `g`'s link at cycle `at` (its tail
    /// by tick `tail_in`), in routing state `state` after the granted hop.
    #[inline(always)]
    fn arrival(
        &self,
        g: &Grant,
        at: u64,
        tail_in: u64,
        packet: Packet,
        state: RouteState,
        sh: &Shared,
    ) -> Outgoing {
        Outgoing {
            router: g.output.peer,
            time: at,
            event: Event::Arrive {
                port: g.output.peer_port,
                vc: g.r.out_vc,
                packet: Packet {
                    head_ready: at + sh.config.router_delay_cycles as u64,
                    tail_in,
                    state,
                    ..packet
                },
            },
        }
    }

    /// Flits held in this router's input buffers, and flits still at the source (source queue
    /// and injection port).
    pub fn held_flits(&self) -> (u64, u64) {
        let mut network = 0u64;
        let mut source: u64 = self.sources.iter().flatten().map(|m| m.flits_left).sum();
        let injection_from = ((self.n_in - 1) * self.vcs) as usize;
        for (q, (queue, head)) in self.queues.iter().zip(&self.heads).enumerate() {
            let front = if head.packets > 0 {
                head.packet.arrived
            } else {
                0
            };
            let behind: u64 = queue.iter().map(|p| p.arrived as u64).sum();
            let mut flits = behind + front as u64;
            // Flits of a head packet that have left on a link are on their way (to the ejection
            // port they count here until its tail leaves).
            if head.hop != NO_HOP && !(self.has_host && head.hop_out == self.n_out - 1) {
                flits -= head.sent as u64;
            }
            if self.has_host && q >= injection_from {
                source += flits;
            } else {
                network += flits;
            }
        }
        (network, source)
    }

    /// Calls `wait(from_link, from_vc, to_link, to_vc)` for every head packet in a link's VC
    /// that waits for a downstream VC without room for it.
    pub fn waits(&mut self, sh: &Shared, mut wait: impl FnMut(u32, u8, u32, u8)) -> Result<()> {
        let f = sh.fabric;
        for input in 0..self.n_in {
            let from_link = f.ins[(self.in_start + input) as usize].link;
            if from_link == NO_LINK {
                continue;
            }
            for vc in 0..self.vcs {
                let q = (input * self.vcs + vc) as usize;
                // A packet that holds its downstream VC waits for its own flits, or (wormhole) for
                // a credit of that VC.
                let head = self.heads[q];
                if head.packets == 0 {
                    continue;
                }
                if head.hop != NO_HOP {
                    let to_link = f.outs[(self.out_start + head.hop_out) as usize].link;
                    if to_link != NO_LINK && !self.flit_credit(head.hop_out, head.out_vc, sh) {
                        wait(from_link, vc as u8, to_link, head.out_vc);
                    }
                    continue;
                }
                if self.cands[q].is_empty() {
                    self.route(q, sh)?;
                }
                for cand in &self.cands[q] {
                    let to_link = f.outs[(self.out_start + cand.out()) as usize].link;
                    let range = self.class_vcs(cand.out(), cand.vc);
                    let base = (cand.out() * self.vcs) as usize;
                    // The packet waits for every VC of its class when none can take it.
                    let blocked =
                        |v: usize| !self.vc_takes(cand.out(), v - base, head.packet.flits, sh);
                    if to_link != NO_LINK && range.clone().all(blocked) {
                        for v in range {
                            wait(from_link, vc as u8, to_link, (v - base) as u8);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
