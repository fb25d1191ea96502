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

    /// Keeps a list taken out for the next slot that starts to fill.
    pub fn recycle(&mut self, mut emptied: Vec<(u32, Event)>) {
        emptied.clear();
        self.spare.push(emptied);
    }

    /// Flits of the packets on the wheel (in flight on links, or ejecting).
    pub fn flits(&self) -> u64 {
        self.slots.iter().flatten().map(|(_, e)| e.flits()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A credit event tagged by `n` (in its flit count), to follow it through the wheel.
    fn tagged(n: u32) -> Event {
        Event::Credit {
            port: 0,
            vc: 0,
            flits: n,
        }
    }

    fn tag(event: &Event) -> u32 {
        match event {
            Event::Credit { flits, .. } => *flits,
            _ => unreachable!("only tagged credits are pushed"),
        }
    }

    proptest! {
        /// Taking the cycles in turn, each returns exactly the events scheduled for it, in the
        /// order they were sent, however lists are handed between slots.
        #[test]
        fn every_cycle_gets_its_own_events_in_order(
            sends in prop::collection::vec(prop::collection::vec((1u64..8, 0u32..4), 0..6), 1..40)
        ) {
            let mut wheel = Wheel::new(8);
            let mut expected: Vec<Vec<(u32, u32)>> = vec![Vec::new(); sends.len() + 8];
            let mut n = 0;
            for (cycle, sent) in sends.iter().enumerate() {
                let list = wheel.take(cycle as u64);
                let got: Vec<(u32, u32)> = list.iter().map(|(r, e)| (*r, tag(e))).collect();
                prop_assert_eq!(&got, &expected[cycle]);
                wheel.recycle(list);
                for &(ahead, router) in sent {
                    let due = cycle as u64 + ahead;
                    wheel.push(router, due, tagged(n));
                    expected[due as usize].push((router, n));
                    n += 1;
                }
            }
        }
    }

    #[test]
    fn emptied_lists_are_reused_and_flits_counted() {
        let mut wheel = Wheel::new(4);
        wheel.push(0, 1, Event::Flit { port: 0, vc: 0 });
        wheel.push(1, 1, tagged(3));
        assert_eq!(wheel.flits(), 1);
        let list = wheel.take(1);
        assert_eq!(list.len(), 2);
        let storage = list.as_ptr();
        wheel.recycle(list);
        assert_eq!(wheel.flits(), 0);
        wheel.push(2, 3, Event::Flit { port: 1, vc: 1 });
        let reused = wheel.take(3);
        assert_eq!(
            reused.as_ptr(),
            storage,
            "the emptied list carries the next slot's events"
        );
    }
}
