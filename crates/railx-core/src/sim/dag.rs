//! Message DAGs: the workload form every simulator runs, and the form collective schedules take.
//!
//! A message goes from one chip to one or more others: a *multicast* (one transmission the
//! network replicates, e.g. at an optical WSS) names several destinations, a unicast one; both
//! are the same record. It is injected `delay_s` after the last of the
//! messages it depends on has fully arrived (a local compute or reduction delay); a message with
//! no dependencies is injected at `delay_s`. Dependencies must name earlier messages, so every
//! DAG is acyclic by construction and the messages are already in a topological order.
//!
//! Storage is columnar (one vector per field, dependencies in compressed rows) so that schedules
//! with tens of millions of messages stay compact.

use crate::error::{RailxError, Result};

/// Index of a message in its DAG.
pub type MessageId = u32;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct MessageDag {
    src: Vec<u32>,
    /// Message `i` goes to `dsts[dst_start[i]..dst_start[i + 1]]` (one entry for a unicast).
    dst_start: Vec<u64>,
    dsts: Vec<u32>,
    bytes: Vec<u64>,
    delay_s: Vec<f64>,
    /// Message `i` depends on `deps[dep_start[i]..dep_start[i + 1]]`.
    dep_start: Vec<u64>,
    deps: Vec<MessageId>,
}

impl MessageDag {
    /// Memory per unicast message with a few dependencies, as the vectors grow by doubling.
    pub const BYTES_PER_MESSAGE: f64 = 96.0;

    pub fn new() -> MessageDag {
        MessageDag {
            dst_start: vec![0],
            dep_start: vec![0],
            ..MessageDag::default()
        }
    }

    /// Appends a unicast message and returns its id (see [`MessageDag::push_multicast`]).
    pub fn push(
        &mut self,
        src: u32,
        dst: u32,
        bytes: u64,
        delay_s: f64,
        after: &[MessageId],
    ) -> Result<MessageId> {
        self.push_multicast(src, &[dst], bytes, delay_s, after)
    }

    /// Appends a message to every chip of `dsts` (distinct, at least one) and returns its id.
    /// Every dependency must be an earlier message; the size must be positive and the delay
    /// finite and not negative.
    pub fn push_multicast(
        &mut self,
        src: u32,
        dsts: &[u32],
        bytes: u64,
        delay_s: f64,
        after: &[MessageId],
    ) -> Result<MessageId> {
        let id = self.len();
        if dsts.is_empty() {
            return Err(RailxError::invalid(
                format!("message {id}.dst"),
                "[]",
                "a message has at least one destination",
                "name the receiving chip",
            ));
        }
        if let Some(i) = (1..dsts.len()).find(|&i| dsts[..i].contains(&dsts[i])) {
            return Err(RailxError::invalid(
                format!("message {id}.dst[{i}]"),
                dsts[i],
                "a multicast names each destination once",
                "drop the repeated destination",
            ));
        }
        if bytes == 0 {
            return Err(RailxError::invalid(
                format!("message {id}.bytes"),
                bytes,
                "a message carries at least one byte",
                "drop empty messages from the schedule",
            ));
        }
        if !(delay_s.is_finite() && delay_s >= 0.0) {
            return Err(RailxError::invalid(
                format!("message {id}.delay_s"),
                delay_s,
                "must be a finite number of seconds >= 0",
                "use 0 for no local delay",
            ));
        }
        if let Some(&bad) = after.iter().find(|&&d| d >= id) {
            return Err(RailxError::invalid(
                format!("message {id}.after"),
                bad,
                "a message may only wait for earlier messages",
                format!("use ids below {id}"),
            ));
        }
        self.src.push(src);
        self.dsts.extend_from_slice(dsts);
        self.dst_start.push(self.dsts.len() as u64);
        self.bytes.push(bytes);
        self.delay_s.push(delay_s);
        self.deps.extend_from_slice(after);
        self.dep_start.push(self.deps.len() as u64);
        Ok(id)
    }

    pub fn len(&self) -> u32 {
        self.src.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    pub fn src(&self, id: MessageId) -> u32 {
        self.src[id as usize]
    }

    /// The destination of a unicast message (a multicast's first; see [`MessageDag::dsts`]).
    pub fn dst(&self, id: MessageId) -> u32 {
        self.dsts[self.dst_start[id as usize] as usize]
    }

    /// Every destination of a message: one for a unicast, several for a multicast.
    pub fn dsts(&self, id: MessageId) -> &[u32] {
        let i = id as usize;
        &self.dsts[self.dst_start[i] as usize..self.dst_start[i + 1] as usize]
    }

    /// Whether some message has more than one destination.
    pub fn has_multicast(&self) -> bool {
        self.dsts.len() > self.src.len()
    }

    /// The same DAG with every multicast lowered to one unicast copy per destination (a copy
    /// keeps the message's bytes, delay and dependencies); a message that waited for a
    /// multicast waits for all its copies. Unicast messages are kept as they are.
    pub fn unicast_copies(&self) -> MessageDag {
        let mut out = MessageDag::new();
        // Copies of message i are first_copy[i]..first_copy[i] + its destinations.
        let mut first_copy: Vec<MessageId> = Vec::with_capacity(self.src.len());
        let mut after = Vec::new();
        for id in 0..self.len() {
            first_copy.push(out.len());
            after.clear();
            for &d in self.after(id) {
                let first = first_copy[d as usize];
                after.extend(first..first + self.dsts(d).len() as MessageId);
            }
            for &dst in self.dsts(id) {
                out.push(self.src(id), dst, self.bytes(id), self.delay_s(id), &after)
                    .expect("a copy of a valid message is valid");
            }
        }
        out
    }

    /// Appends every message of `other` after this DAG's, its dependencies renumbered, as an
    /// independent component (no message of one waits for the other's); returns the ids the
    /// appended messages took.
    pub fn append(&mut self, other: &MessageDag) -> std::ops::Range<MessageId> {
        let offset = self.len();
        let (dsts, deps) = (self.dsts.len() as u64, self.deps.len() as u64);
        self.src.extend_from_slice(&other.src);
        self.dsts.extend_from_slice(&other.dsts);
        self.dst_start
            .extend(other.dst_start[1..].iter().map(|&s| s + dsts));
        self.bytes.extend_from_slice(&other.bytes);
        self.delay_s.extend_from_slice(&other.delay_s);
        self.deps.extend(other.deps.iter().map(|&d| d + offset));
        self.dep_start
            .extend(other.dep_start[1..].iter().map(|&s| s + deps));
        offset..self.len()
    }

    pub fn bytes(&self, id: MessageId) -> u64 {
        self.bytes[id as usize]
    }

    pub fn delay_s(&self, id: MessageId) -> f64 {
        self.delay_s[id as usize]
    }

    /// The messages `id` waits for.
    pub fn after(&self, id: MessageId) -> &[MessageId] {
        let i = id as usize;
        &self.deps[self.dep_start[i] as usize..self.dep_start[i + 1] as usize]
    }

    /// Total bytes over all messages.
    pub fn total_bytes(&self) -> u64 {
        self.bytes.iter().sum()
    }

    /// For each message, the messages that wait for it (the reverse edges), in compressed rows:
    /// message `i`'s dependants are `list[start[i]..start[i + 1]]`.
    pub fn dependants(&self) -> (Vec<u64>, Vec<MessageId>) {
        let n = self.src.len();
        let mut start = vec![0u64; n + 1];
        for &d in &self.deps {
            start[d as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0; self.deps.len()];
        for id in 0..n as MessageId {
            for &d in self.after(id) {
                list[fill[d as usize] as usize] = id;
                fill[d as usize] += 1;
            }
        }
        (start, list)
    }

    /// Checks every endpoint against a network of `chips` chips: both ends must be chips and
    /// differ (a chip does not send to itself over the network).
    pub fn check_chips(&self, chips: u32) -> Result<()> {
        for id in 0..self.len() {
            let s = self.src(id);
            let ends = std::iter::once(("src", s)).chain(self.dsts(id).iter().map(|&d| ("dst", d)));
            for (field, chip) in ends {
                if chip >= chips {
                    return Err(RailxError::invalid(
                        format!("message {id}.{field}"),
                        chip,
                        format!("the network has {chips} chips"),
                        format!("use a chip id in 0..{chips}"),
                    ));
                }
            }
            if let Some(&d) = self.dsts(id).iter().find(|&&d| d == s) {
                return Err(RailxError::invalid(
                    format!("message {id}.dst"),
                    d,
                    "a message goes to another chip",
                    "express local work as a delay on the dependent messages",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn refuses_forward_dependencies_and_empty_messages() {
        let mut dag = MessageDag::new();
        let a = dag.push(0, 1, 8, 0.0, &[]).unwrap();
        assert!(dag
            .push(1, 0, 8, 0.0, &[a + 1])
            .unwrap_err()
            .to_string()
            .contains("earlier"));
        assert!(dag
            .push(1, 0, 0, 0.0, &[a])
            .unwrap_err()
            .to_string()
            .contains("at least one byte"));
        assert!(dag.push(1, 0, 8, f64::NAN, &[a]).is_err());
        assert_eq!(dag.len(), 1);
    }

    #[test]
    fn checks_endpoints_against_the_network() {
        let mut dag = MessageDag::new();
        dag.push(0, 3, 8, 0.0, &[]).unwrap();
        assert!(dag.check_chips(4).is_ok());
        assert!(dag
            .check_chips(3)
            .unwrap_err()
            .to_string()
            .contains("message 0.dst = 3"));
    }

    #[test]
    fn multicasts_lower_to_copies_that_keep_the_order() {
        let mut dag = MessageDag::new();
        let a = dag.push_multicast(0, &[1, 2, 3], 8, 0.0, &[]).unwrap();
        dag.push(2, 0, 4, 1e-6, &[a]).unwrap();
        assert!(dag.has_multicast());
        assert_eq!(dag.dsts(a), &[1, 2, 3]);
        let copies = dag.unicast_copies();
        assert!(!copies.has_multicast());
        assert_eq!(copies.len(), 4);
        assert_eq!(
            (0..3).map(|i| copies.dst(i)).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        assert_eq!(copies.after(3), &[0, 1, 2]);
        assert_eq!(copies.delay_s(3), 1e-6);
        let err = dag
            .push_multicast(0, &[1, 1], 8, 0.0, &[])
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("message 2.dst[1] = 1"), "{err}");
        assert!(dag.push_multicast(0, &[], 8, 0.0, &[]).is_err());
        let mut own = MessageDag::new();
        own.push_multicast(0, &[1, 0], 8, 0.0, &[]).unwrap();
        assert!(own
            .check_chips(2)
            .unwrap_err()
            .to_string()
            .contains("another chip"));
    }

    proptest! {
        /// The reverse edges list exactly the forward ones.
        #[test]
        fn dependants_invert_dependencies(edges in prop::collection::vec(prop::collection::vec(0u32..1000, 0..4), 1..60)) {
            let mut dag = MessageDag::new();
            for (id, e) in edges.iter().enumerate() {
                let after: Vec<u32> = if id == 0 { vec![] } else { e.iter().map(|d| d % id as u32).collect() };
                dag.push(0, 1, 1, 0.0, &after).unwrap();
            }
            let (start, list) = dag.dependants();
            let mut forward = Vec::new();
            for id in 0..dag.len() { for &d in dag.after(id) { forward.push((d, id)); } }
            let mut reverse = Vec::new();
            for d in 0..dag.len() as usize { for &id in &list[start[d] as usize..start[d + 1] as usize] { reverse.push((d as u32, id)); } }
            forward.sort_unstable();
            reverse.sort_unstable();
            prop_assert_eq!(forward, reverse);
        }
    }
}
