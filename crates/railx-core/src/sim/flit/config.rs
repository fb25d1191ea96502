//! Simulator parameters; the defaults are the RailX paper's Table 5.

use crate::error::{RailxError, Result};
use serde::{Deserialize, Serialize};

/// Largest number of virtual channels per link the simulator models (a bit mask per port).
pub const MAX_VCS: u8 = 64;

/// Largest crossbar speedup modelled.
pub const MAX_SWITCH_SPEEDUP: u32 = 16;

/// Bytes one queued source packet takes.
pub const SOURCE_ENTRY_BYTES: f64 = 32.0;

/// How a chip queues the messages it has to send (the injection queues of its router).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InjectionQueues {
    /// One FIFO: messages leave one after another, as from BookSim2's source queue.
    Single,
    /// A queue per message, up to `MAX_VCS` at once (more wait behind the least busy queue): the
    /// messages a chip has to send leave side by side, packets interleaved round-robin, as from
    /// a NIC with many send queues (and as the flow level shares a chip's links among them).
    PerMessage,
}

/// What the switch allocator grants an input: a whole packet, or one flit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwitchAllocation {
    /// A granted packet holds its input and output until its last flit has crossed.
    Packet,
    /// Every flit is allocated on its own, each cycle (BookSim2's input-queued router): flits of
    /// packets on different VCs interleave on a port, and a packet holds only its downstream VC
    /// (from its head flit until its tail has left) — each flit travels, and returns its credit,
    /// on its own.
    Flit,
}

/// Which request wins when several want one input or one output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arbitration {
    /// Round-robin over VCs (at an input) and inputs (at an output), as BookSim2's arbiters.
    RoundRobin,
    /// The oldest packet first (by its generation cycle; round-robin among equals): CNSim's
    /// allocation, which serves the packets of the whole network in the order they were
    /// generated, so packets in flight win over new ones and long routes are not starved.
    Oldest,
}

/// When a packet is given its downstream VC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VcAllocation {
    /// With the switch: a packet takes the free output whose VC class has most room, when both
    /// are free.
    WithSwitch,
    /// Ahead of the switch (CNSim): a packet at the head of its VC takes the first VC, in the
    /// routing's order of hops, that is empty and has room for it, else the first with room, its
    /// credits held from then on, and waits for that hop's output even while another hop's is
    /// free. Empty as CNSim counts it: no packet that goes on past the next router is in the VC
    /// or on its way into it (credits taken ahead, and packets ending there, do not count).
    /// Packet switch allocation only.
    Ahead,
}

/// What a link's latency delays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkLatency {
    /// Every flit, and every credit sent back, crosses the link in its latency (a pipelined wire).
    Flits,
    /// Only the head: the next router routes it the latency later, while its flits enter the
    /// downstream buffer as they are sent and credits return at once. CNSim's model, where a
    /// link's latency is a timer on the packet's head and buffer space a counter both routers
    /// read.
    Head,
}

/// How long a packet holds its input port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InputPace {
    /// The port reads at its own link's rate: a packet holds it for `flits / rate` cycles.
    Link,
    /// Until the packet's tail has left it for the output, at the output link's pace (and not
    /// before the tail has arrived). CNSim's input buffer: one packet at a time crosses from it,
    /// the port held until that packet's last flit has moved on, so a packet waiting in a slow
    /// link's buffer drains at a fast output's rate and one bound for a slow output holds a fast
    /// input as long. The injection port keeps its own rate. Input-queued (speedup 1) packet
    /// switch allocation only.
    Output,
}

/// How a packet leaves the network at its destination chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ejection {
    /// It queues in its input VC at the destination like any packet and leaves through the
    /// chip's ejection port.
    Port,
    /// It never queues there: it is delivered, and the credits it holds return, as soon as its
    /// head's link latency has passed and its tail is in. CNSim's destination buffer, into whose
    /// VC queue a packet ending there is never put, so it neither waits behind the packets
    /// queued there nor blocks them. Packet switch allocation only.
    OnArrival,
}

/// When a packet may take a downstream VC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlowControl {
    /// Virtual cut-through: only when the VC has room for the whole packet.
    CutThrough,
    /// Wormhole (with flit switch allocation): when the VC is free and has room for one flit;
    /// the packet's flits then advance as credits return, a blocked packet spanning routers
    /// (BookSim2's default).
    Wormhole,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FlitConfig {
    /// Flits per packet (Table 5: 4).
    pub packet_flits: u32,
    /// Input buffer per virtual channel, in flits (Table 5: 16).
    pub buffer_flits: u32,
    /// Cycles from a head flit's arrival until the router may forward it (routing and allocation).
    pub router_delay_cycles: u32,
    /// Cycles a packet waits at the head of its input VC (routing and VC allocation for it)
    /// after the packet ahead of it has left: 0 = done while that packet streams out (pipelined);
    /// 2 = a non-speculative three-stage router such as BookSim2's default (route, VC
    /// allocation, then switch allocation), which leaves two idle cycles between packets.
    pub head_delay_cycles: u32,
    /// Physical virtual channels behind each VC the routing function names (its VC class): the VC
    /// allocator gives a packet any free one of its class, each with its own `buffer_flits`
    /// buffer. 1 = the routing function's VCs taken literally. Deadlock freedom is unchanged (a
    /// packet of class c waits only for VCs of the classes its route allows, so the channel
    /// dependency graph over classes is the one the deadlock check proves acyclic).
    pub vcs_per_class: u32,
    /// Which request wins an input or an output: round-robin (the default) or the oldest packet.
    pub arbitration: Arbitration,
    /// Cycles a new packet waits at its source before it may be routed, besides
    /// `router_delay_cycles` (packetization; CNSim's `processing_time`, 2 by default).
    pub packetization_cycles: u32,
    /// Rounds of the separable allocator per cycle: inputs that lost arbitration try their other
    /// VCs against the outputs still free (1 = a single round, as BookSim2's default).
    pub alloc_iterations: u32,
    /// What the switch allocator grants: whole packets (the default) or single flits.
    pub switch_allocation: SwitchAllocation,
    /// Virtual cut-through (the default) or, with flit switch allocation, wormhole.
    pub flow_control: FlowControl,
    /// Crossbar speedup: an input port reads, and an output port takes, packets this many times
    /// faster than their links carry them, so a packet crosses into its output's queue while the
    /// link still sends the ones before it — a combined input-output queued router, which
    /// relieves the head-of-line blocking and matching losses of a purely input-queued one.
    /// 1 = input-queued (Table 5; BookSim2's default): no output queue.
    pub switch_speedup: u32,
    /// Output queue of each port in flits, used with `switch_speedup` > 1 (packets queued there
    /// already hold the credits of their downstream VC).
    pub output_buffer_flits: u32,
    /// When a packet is given its downstream VC: with the switch (the default) or ahead of it.
    pub vc_allocation: VcAllocation,
    /// How long a packet holds its input port: at the input link's rate (the default) or until
    /// its tail has left at the output's pace.
    pub input_pace: InputPace,
    /// What a link's latency delays: every flit and credit (the default) or only the head.
    pub link_latency: LinkLatency,
    /// How a packet leaves at its destination: through the ejection port (the default) or on
    /// arrival, never queued there.
    pub ejection: Ejection,
    /// Latency of intra-node (short-reach) links (Table 5: 1 cycle).
    pub short_latency_cycles: u32,
    /// Latency of every other link: optical, copper, switch (Table 5: 10 cycles).
    pub long_latency_cycles: u32,
    /// Flits per cycle a chip can inject (and eject); the offered load may not exceed it.
    pub injection_flits_per_cycle: f64,
    /// How a chip queues what it sends: one FIFO, or one queue per message.
    pub injection_queues: InjectionQueues,
    /// Cycles before measurement starts (Table 5: 5000).
    pub warmup_cycles: u64,
    /// Measured cycles (Table 5: 10000).
    pub measure_cycles: u64,
    /// Limit on the cycles of a finite workload (finite all-to-all, message DAG).
    pub max_cycles: u64,
    /// A run in which flits are in the network but none moves for this many cycles ends with a
    /// deadlock report.
    pub watchdog_cycles: u64,
    /// Bytes per flit, to turn message sizes into flits (message DAGs).
    pub flit_bytes: u32,
    /// Worker threads; results do not depend on it.
    pub threads: usize,
    pub seed: u64,
}

impl Default for FlitConfig {
    fn default() -> Self {
        FlitConfig {
            packet_flits: 4,
            buffer_flits: 16,
            router_delay_cycles: 1,
            head_delay_cycles: 0,
            vcs_per_class: 1,
            arbitration: Arbitration::RoundRobin,
            packetization_cycles: 0,
            alloc_iterations: 1,
            switch_allocation: SwitchAllocation::Packet,
            flow_control: FlowControl::CutThrough,
            switch_speedup: 1,
            output_buffer_flits: 16,
            vc_allocation: VcAllocation::WithSwitch,
            input_pace: InputPace::Link,
            link_latency: LinkLatency::Flits,
            ejection: Ejection::Port,
            short_latency_cycles: 1,
            long_latency_cycles: 10,
            injection_flits_per_cycle: 1.0,
            injection_queues: InjectionQueues::Single,
            warmup_cycles: 5000,
            measure_cycles: 10000,
            max_cycles: 10_000_000,
            watchdog_cycles: 1000,
            flit_bytes: 64,
            threads: 1,
            seed: 0,
        }
    }
}

impl FlitConfig {
    /// Checks every parameter on its own (the load is checked against the traffic).
    pub fn validate(&self) -> Result<()> {
        for (field, value, hint) in [
            ("packet_flits", self.packet_flits, "e.g. 4"),
            ("buffer_flits", self.buffer_flits, "e.g. 16"),
            ("flit_bytes", self.flit_bytes, "e.g. 64"),
            ("alloc_iterations", self.alloc_iterations, "e.g. 1"),
            ("vcs_per_class", self.vcs_per_class, "e.g. 4"),
        ] {
            crate::error::require_positive(field, value, hint)?;
        }
        if self.flow_control == FlowControl::Wormhole
            && self.switch_allocation != SwitchAllocation::Flit
        {
            return Err(RailxError::invalid(
                "flow_control",
                "wormhole",
                "a packet's flits advance one by one only with flit switch allocation",
                "use switch_allocation = flit with flow_control = wormhole",
            ));
        }
        if self.buffer_flits < self.packet_flits && self.flow_control == FlowControl::CutThrough {
            return Err(RailxError::invalid(
                "buffer_flits",
                self.buffer_flits,
                format!(
                    "virtual cut-through needs a VC buffer that holds a whole packet of {} flits",
                    self.packet_flits
                ),
                format!("use buffer_flits >= {}", self.packet_flits),
            ));
        }
        if !(1..=MAX_SWITCH_SPEEDUP).contains(&self.switch_speedup) {
            return Err(RailxError::invalid(
                "switch_speedup",
                self.switch_speedup,
                format!("must be in 1..={MAX_SWITCH_SPEEDUP} (1: an input-queued router)"),
                "e.g. 2",
            ));
        }
        if self.switch_speedup > 1 && self.switch_allocation == SwitchAllocation::Flit {
            return Err(RailxError::invalid(
                "switch_speedup",
                self.switch_speedup,
                "output queues are modelled with packet switch allocation only",
                "use switch_speedup = 1 with switch_allocation = flit",
            ));
        }
        // CNSim's packet-level mechanisms: (field, its value, what it models, the alternative).
        let packet_only = [
            (
                self.link_latency == LinkLatency::Head,
                (
                    "link_latency",
                    "head",
                    "a latency on the head alone",
                    "flits",
                ),
            ),
            (
                self.vc_allocation == VcAllocation::Ahead,
                (
                    "vc_allocation",
                    "ahead",
                    "VC allocation ahead of the switch",
                    "with-switch",
                ),
            ),
            (
                self.ejection == Ejection::OnArrival,
                ("ejection", "on-arrival", "delivery on arrival", "port"),
            ),
        ];
        for (set, (field, value, what, instead)) in packet_only {
            if set && self.switch_allocation == SwitchAllocation::Flit {
                return Err(RailxError::invalid(
                    field,
                    value,
                    format!("{what} is modelled with packet switch allocation only"),
                    format!("use {field} = {instead} with switch_allocation = flit"),
                ));
            }
        }
        if self.input_pace == InputPace::Output
            && (self.switch_allocation == SwitchAllocation::Flit || self.switch_speedup > 1)
        {
            return Err(RailxError::invalid(
                "input_pace",
                "output",
                "an input held at the output's pace is modelled for an input-queued router \
                 (switch_speedup = 1) with packet switch allocation only",
                "use input_pace = link with switch_allocation = flit or switch_speedup > 1",
            ));
        }
        if self.switch_speedup > 1 && self.output_buffer_flits < self.packet_flits {
            return Err(RailxError::invalid(
                "output_buffer_flits",
                self.output_buffer_flits,
                format!(
                    "with switch_speedup > 1 a packet of {} flits crosses into its output's queue whole",
                    self.packet_flits
                ),
                format!("use output_buffer_flits >= {}", self.packet_flits),
            ));
        }
        if self.packet_flits > u16::MAX as u32 {
            return Err(RailxError::invalid(
                "packet_flits",
                self.packet_flits,
                "packets of at most 65535 flits are modelled",
                "e.g. 4",
            ));
        }
        for (field, value) in [
            ("router_delay_cycles", self.router_delay_cycles),
            ("head_delay_cycles", self.head_delay_cycles),
            ("packetization_cycles", self.packetization_cycles),
            ("short_latency_cycles", self.short_latency_cycles),
            ("long_latency_cycles", self.long_latency_cycles),
        ] {
            if value > 1_000_000 {
                return Err(RailxError::invalid(
                    field,
                    value,
                    "delays above 1,000,000 cycles are not modelled",
                    "e.g. 10",
                ));
            }
        }
        let inj = self.injection_flits_per_cycle;
        if !(inj.is_finite() && (0.01..=1024.0).contains(&inj)) {
            return Err(RailxError::invalid(
                "injection_flits_per_cycle",
                inj,
                "must be a number of flits per cycle in 0.01..=1024",
                "e.g. 8 for 8 ports of 1 flit/cycle",
            ));
        }
        if self.measure_cycles == 0 {
            return Err(RailxError::invalid(
                "measure_cycles",
                0,
                "a rate measurement needs at least one measured cycle",
                "e.g. 10000",
            ));
        }
        if self.watchdog_cycles == 0 {
            return Err(RailxError::invalid(
                "watchdog_cycles",
                0,
                "must be positive",
                "e.g. 1000",
            ));
        }
        if self.threads == 0 || self.threads > 1024 {
            return Err(RailxError::invalid(
                "threads",
                self.threads,
                "must be in 1..=1024",
                "e.g. 2",
            ));
        }
        Ok(())
    }

    /// BookSim2's router timing in railx's packet router (the rest Table 5's defaults): 4 cycles
    /// a hop with 1-cycle links (BookSim2's ~81-cycle zero-load latency over the 36 x 36
    /// torus's 18 mean hops) — a 2-cycle router, one of whose stages (routing or VC allocation)
    /// a VC's next packet passes only after the tail ahead of it has left: one idle cycle per
    /// packet per VC.
    pub fn booksim2_timing() -> FlitConfig {
        FlitConfig {
            router_delay_cycles: 2,
            head_delay_cycles: 1,
            ..FlitConfig::default()
        }
    }

    /// BookSim2's input-queued router as issue 7's reference ran it, in railx's terms: its timing
    /// (`booksim2_timing`) with flits allocated one by one under wormhole flow control. Its torus
    /// routing is `dateline-partition`.
    pub fn booksim2_router() -> FlitConfig {
        FlitConfig {
            switch_allocation: SwitchAllocation::Flit,
            flow_control: FlowControl::Wormhole,
            ..FlitConfig::booksim2_timing()
        }
    }

    /// The RailX authors' simulator, CNSim (its `railx` branch), as it runs a RailX network
    /// (docs/simulation.md, Against CNSim): 4-flit packets, one 16-flit VC per VC class, a
    /// one-stage router (routing, VC and switch allocation in the cycle after the head's link
    /// latency: `router_delay_cycles` 0 here, where a hop's first cycle carries the head flit),
    /// 2 cycles of packetization at the source, a link latency that delays the head alone
    /// (flits and credits move without it), oldest-first allocation in rounds until no request
    /// is left (a maximal matching, as CNSim's allocation of one packet at a time in age order),
    /// no source FIFO (a packet waits only for its own output), no injection port of its own
    /// (the caller sets `injection_flits_per_cycle` to a chip's link bandwidth) and delivery on
    /// arrival (a packet is never queued at its destination), 1-cycle mesh and 10-cycle rail
    /// links, its VC allocation ahead of the switch (the first empty VC, else the first with room,
    /// held while the packet waits for that output), input ports held until the tail has left at
    /// the output's pace, 500 warm-up and 1,000 measured cycles. Its routing is RailX `phased`.
    /// CNSim built from its public sources and run on the Fig. 14 RailX saturates within 3% of
    /// this preset at k = 1, 2, 4 (docs/simulation.md, Against CNSim).
    pub fn cnsim() -> FlitConfig {
        FlitConfig {
            packet_flits: 4,
            buffer_flits: 16,
            router_delay_cycles: 0,
            head_delay_cycles: 0,
            packetization_cycles: 2,
            vcs_per_class: 1,
            arbitration: Arbitration::Oldest,
            // Rounds until no request is left (more than a RailX router has inputs): a maximal
            // matching, as CNSim's allocation of one packet at a time in age order makes.
            alloc_iterations: 64,
            link_latency: LinkLatency::Head,
            vc_allocation: VcAllocation::Ahead,
            input_pace: InputPace::Output,
            ejection: Ejection::OnArrival,
            injection_queues: InjectionQueues::PerMessage,
            short_latency_cycles: 1,
            long_latency_cycles: 10,
            warmup_cycles: 500,
            measure_cycles: 1000,
            ..FlitConfig::default()
        }
    }

    /// A named preset: `table5` (the defaults) or `cnsim`.
    pub fn preset(name: &str) -> Result<FlitConfig> {
        match name {
            "table5" => Ok(FlitConfig::default()),
            "cnsim" => Ok(FlitConfig::cnsim()),
            other => Err(RailxError::invalid(
                "preset",
                other,
                "unknown simulator preset",
                "use table5 or cnsim",
            )),
        }
    }

    /// Flits an output may have queued for its link, beyond the one cycle an input-queued
    /// router's output looks ahead, when it takes a further packet of at most `packet_flits`.
    pub fn output_queue_flits(&self) -> u32 {
        match self.switch_speedup {
            1 => 0,
            _ => self.output_buffer_flits - self.packet_flits,
        }
    }

    /// Free flits a downstream VC needs before a packet of `flits` may take it.
    pub fn flits_to_take_vc(&self, flits: u32) -> u32 {
        match self.flow_control {
            FlowControl::CutThrough => flits,
            FlowControl::Wormhole => 1,
        }
    }

    /// Cycles of a run at a constant rate.
    pub fn rate_cycles(&self) -> u64 {
        self.warmup_cycles.saturating_add(self.measure_cycles)
    }

    /// Packets a rate run at `load_flits_per_cycle` generates on `chips` chips in `cycles`: in
    /// a saturated network every one stays queued at its source.
    pub fn source_packets(&self, chips: usize, cycles: f64, load_flits_per_cycle: f64) -> f64 {
        chips as f64 * cycles * load_flits_per_cycle / self.packet_flits as f64
    }
}
