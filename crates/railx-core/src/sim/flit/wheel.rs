//! A partition's timing wheel: the events due at its routers, by due cycle modulo the wheel's
//! length, each for a router (by vertex id), in the order they were sent.
//!
//! The wheel is as long as the furthest an event can be scheduled ahead, but nearly all events
//! land within a few cycles. A list emptied at its cycle is handed to the next slot that starts
//! to fill instead of staying with its own slot, so a few lists, warm in cache, carry all the
//! events, rather than the whole wheel's worth of memory being swept through every round.

use super::router::Event;

pub(crate) struct Wheel {
    slots: Vec<Vec<(u32, Event)>>,
    /// Emptied lists, the last emptied reused first.
    spare: Vec<Vec<(u32, Event)>>,
    mask: u64,
}

impl Wheel {
    /// A wheel of `slots` cycles (a power of two).
    pub fn new(slots: usize) -> Wheel {
        Wheel {
            slots: vec![Vec::new(); slots],
            spare: Vec::new(),
            mask: slots as u64 - 1,
        }
    }

    /// Schedules `event` for vertex `router` at cycle `time`.
    #[inline(always)]
    pub fn push(&mut self, router: u32, time: u64, event: Event) {
        let list = &mut self.slots[(time & self.mask) as usize];
        if list.capacity() == 0 {
            if let Some(spare) = self.spare.pop() {
                *list = spare;
            }
        }
        list.push((router, event));
    }

    /// Takes the events due at `cycle`; hand the list back with `recycle`.
    pub fn take(&mut self, cycle: u64) -> Vec<(u32, Event)> {
        std::mem::take(&mut self.slots[(cycle & self.mask) as usize])
    }

    pub fn recycle(&mut self, mut emptied: Vec<(u32, Event)>) {
        emptied.clear();
        self.spare.push(emptied);
    }

    /// Flits of the packets on the wheel (in flight on links, or ejecting).
    pub fn flits(&self) -> u64 {
        self.slots.iter().flatten().map(|(_, e)| e.flits()).sum()
    }
}
