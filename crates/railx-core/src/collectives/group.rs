//! A process group mapped onto chips: rank `i` runs on chip `chips[i]`, and ranks are numbered in
//! mixed radix over the group's dimensions (innermost first), each with the kind of connection
//! that joins ranks differing only in that coordinate. Algorithms use the shape, never the chip
//! ids; the chip ids only matter when a schedule is lowered to a message DAG.

use crate::error::{RailxError, Result};
use crate::plant::{Axis, Plant};
use crate::spec::DimKind as LogicalKind;
use crate::topology::Region;
use rustc_hash::FxHashSet;

/// How the ranks along one group dimension are connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DimKind {
    /// Inside one high-bandwidth domain: a side of a RailX node's m x m mesh or of a
    /// HammingMesh board, a Rail-only HB domain, a side of a TPUv4 cube, the chips of one switch.
    Local,
    /// A ring (torus dimension, RailX rail rings).
    Ring,
    /// Fully connected (HyperX dimension, RailX rail-ring all-to-all).
    AllToAll,
}

impl DimKind {
    pub fn name(self) -> &'static str {
        match self {
            DimKind::Local => "local",
            DimKind::Ring => "ring",
            DimKind::AllToAll => "all-to-all",
        }
    }
}

/// One dimension of a group: its size, kind and the physical axis it runs along.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupDim {
    pub size: u32,
    pub kind: DimKind,
    pub axis: Axis,
}

impl GroupDim {
    pub fn new(size: u32, kind: DimKind, axis: Axis) -> GroupDim {
        GroupDim { size, kind, axis }
    }
}

/// The address geometry of a SiPAC network (paper 003): chip id = CU address of `levels`
/// base-`radix` digits, the level-l WSS joining the CUs that differ only in digit l. SiPCO and
/// Flex-SiPCO schedule by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SipacShape {
    pub radix: u32,
    pub levels: u32,
}

impl SipacShape {
    /// Digit `level` of CU `cu`.
    pub fn digit(&self, cu: u32, level: u32) -> u32 {
        cu / self.radix.pow(level) % self.radix
    }
}

/// A validated process group.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    chips: Vec<u32>,
    dims: Vec<GroupDim>,
    /// Set when the chips are CUs of a SiPAC network.
    sipac: Option<SipacShape>,
}

impl Group {
    /// A group of `chips.len()` ranks shaped by `dims` (sizes multiply to the rank count) on a
    /// network of `network_chips` chips. Chips must be distinct and exist.
    pub fn new(chips: Vec<u32>, dims: Vec<GroupDim>, network_chips: u32) -> Result<Group> {
        if chips.is_empty() {
            return Err(RailxError::invalid(
                "group.chips",
                "[]",
                "a group has at least one rank",
                "list the chips the ranks run on",
            ));
        }
        if chips.len() > network_chips as usize {
            return Err(RailxError::invalid(
                "group.chips",
                format!("{} ranks", chips.len()),
                format!("a group cannot be larger than the network ({network_chips} chips)"),
                format!("use at most {network_chips} ranks"),
            ));
        }
        let mut seen = FxHashSet::default();
        for (rank, &chip) in chips.iter().enumerate() {
            if chip >= network_chips {
                return Err(RailxError::invalid(
                    format!("group.chips[{rank}]"),
                    chip,
                    format!("the network has {network_chips} chips"),
                    format!("use a chip id in 0..{network_chips}"),
                ));
            }
            if !seen.insert(chip) {
                return Err(RailxError::invalid(
                    format!("group.chips[{rank}]"),
                    chip,
                    "each chip holds one rank of the group",
                    "remove the duplicate chip",
                ));
            }
        }
        if let Some(i) = dims.iter().position(|d| d.size == 0) {
            return Err(RailxError::invalid(
                format!("group.dims[{i}].size"),
                0,
                "a dimension has at least one rank",
                "drop the dimension or give it size 1",
            ));
        }
        let product: u64 = dims.iter().map(|d| d.size as u64).product();
        if product != chips.len() as u64 {
            let sizes: Vec<String> = dims.iter().map(|d| d.size.to_string()).collect();
            return Err(RailxError::invalid(
                "group.dims",
                format!("[{}]", sizes.join(" x ")),
                format!(
                    "the dimension sizes must multiply to the group size {}",
                    chips.len()
                ),
                format!("e.g. one ring dimension of size {}", chips.len()),
            ));
        }
        Ok(Group {
            chips,
            dims,
            sipac: None,
        })
    }

    /// The same group, its chips known to be CUs of a SiPAC network of that shape.
    pub fn on_sipac(self, shape: SipacShape) -> Group {
        Group {
            sipac: Some(shape),
            ..self
        }
    }

    /// The SiPAC geometry of the chips, when they are CUs of a SiPAC network.
    pub fn sipac(&self) -> Option<SipacShape> {
        self.sipac
    }

    /// A one-dimensional group: ranks joined as `kind`, in the order of `chips`.
    pub fn line(chips: Vec<u32>, kind: DimKind, network_chips: u32) -> Result<Group> {
        let size = chips.len() as u32;
        Group::new(
            chips,
            vec![GroupDim::new(size, kind, Axis::X)],
            network_chips,
        )
    }

    /// Every chip of a network whose chip ids already number the ranks in mixed radix over
    /// `dims` (innermost first): rank `i` runs on chip `i`. Dimensions of size 1 carry nothing
    /// and are dropped.
    pub fn numbered(dims: Vec<GroupDim>, network_chips: u32) -> Result<Group> {
        let dims: Vec<GroupDim> = dims.into_iter().filter(|d| d.size != 1).collect();
        let ranks: u64 = dims.iter().map(|d| d.size as u64).product();
        Group::new((0..ranks as u32).collect(), dims, network_chips)
    }

    /// Every chip of a RailX region (the whole system, or one job): rank = local chip index +
    /// m^2 * region-local node index, so the dimensions are the mesh's x and y, then the region's
    /// logical X dimensions, then its logical Y dimensions (innermost first). On a whole-system
    /// region the rank equals the chip id.
    pub fn railx_region(plant: &Plant, region: &Region) -> Result<Group> {
        let per = plant.chips_per_node();
        let chips: Vec<u32> = region
            .node_ids(plant)
            .into_iter()
            .flat_map(|node| (0..per).map(move |local| node * per + local))
            .collect();
        let mut dims = vec![
            GroupDim::new(plant.m, DimKind::Local, Axis::X),
            GroupDim::new(plant.m, DimKind::Local, Axis::Y),
        ];
        for axis in Axis::BOTH {
            let layout = region.layout(axis);
            let extent = region.positions(axis).len() as u32;
            if layout.dims.is_empty() {
                dims.push(GroupDim::new(extent, DimKind::Ring, axis));
            }
            for d in &layout.dims {
                let kind = match d.kind {
                    LogicalKind::Ring => DimKind::Ring,
                    LogicalKind::AllToAll
                    | LogicalKind::SingleLinkAllToAll
                    | LogicalKind::GlobalAllToAll => DimKind::AllToAll,
                };
                dims.push(GroupDim::new(d.size, kind, axis));
            }
        }
        Group::new(chips, dims, plant.chips())
    }

    pub fn ranks(&self) -> u32 {
        self.chips.len() as u32
    }

    pub fn chips(&self) -> &[u32] {
        &self.chips
    }

    pub fn chip(&self, rank: u32) -> u32 {
        self.chips[rank as usize]
    }

    pub fn dims(&self) -> &[GroupDim] {
        &self.dims
    }

    /// Place value of dimension `d` in the rank number.
    pub fn stride(&self, d: usize) -> u32 {
        self.dims[..d].iter().map(|g| g.size).product()
    }

    /// Coordinate of `rank` along dimension `d`.
    pub fn coord(&self, rank: u32, d: usize) -> u32 {
        (rank / self.stride(d)) % self.dims[d].size
    }
}
