//! Logical topologies (README.md, Configuration; RailX paper §3.3): presets expanded to the general
//! per-axis form, validated against the plant, and the regions (the whole grid, or each job's
//! nodes) they apply to.

use crate::error::{RailxError, Result};
use crate::hamiltonian::{has_decomposition, single_link_rail_count};
use crate::plant::{Axis, Plant};
use crate::spec::{ConfigSpec, DimKind, DimSpec, JobSpec, Preset, TopologySpec};
use std::collections::{HashMap, HashSet};

/// A validated logical dimension, with the rails it owns and its place in the mixed radix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogicalDim {
    pub size: u32,
    pub kind: DimKind,
    pub rails: u32,
    /// The first rail of its group: the group is `first_rail .. first_rail + rails`.
    pub first_rail: u32,
    /// Product of the sizes of the dimensions before it (its place value in the axis index).
    pub stride: u32,
}

impl LogicalDim {
    /// This dimension's coordinate of a node at position `pos` along the axis.
    pub fn digit(&self, pos: u32) -> u32 {
        (pos / self.stride) % self.size
    }

    /// Position of the node that equals `pos` except that this coordinate is `digit`.
    pub fn with_digit(&self, pos: u32, digit: u32) -> u32 {
        pos - self.digit(pos) * self.stride + digit * self.stride
    }

    /// Rails of one copy of the decomposition: s-1 directed cycles for `all-to-all` (and a global
    /// dimension), ceil((s-1)/2) = s/2 undirected ones for `single-link-all-to-all`, one for a ring.
    pub fn rails_per_copy(&self) -> u32 {
        rails_per_copy(self.kind, self.size)
    }

    /// Copies of the decomposition: links per node pair are 2*copies for `all-to-all`, copies for
    /// `single-link-all-to-all`.
    pub fn copies(&self) -> u32 {
        self.rails / self.rails_per_copy()
    }

    pub fn rail_range(&self) -> std::ops::Range<u32> {
        self.first_rail..self.first_rail + self.rails
    }
}

/// Rails of one copy of a `kind` dimension of `size` nodes (see [`LogicalDim::rails_per_copy`]).
pub fn rails_per_copy(kind: DimKind, size: u32) -> u32 {
    match kind {
        DimKind::Ring => 1,
        DimKind::AllToAll | DimKind::GlobalAllToAll => size - 1,
        DimKind::SingleLinkAllToAll => single_link_rail_count(size as usize) as u32,
    }
}

/// The logical dimensions of one physical axis, innermost first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AxisLayout {
    pub dims: Vec<LogicalDim>,
}

impl AxisLayout {
    pub fn rails_used(&self) -> u32 {
        self.dims.iter().map(|d| d.rails).sum()
    }

    /// The logical dimension that owns `rail`, if any (rails past the last group are unused).
    pub fn dim_of_rail(&self, rail: u32) -> Option<usize> {
        self.dims
            .iter()
            .position(|d| d.rail_range().contains(&rail))
    }
}

/// A set of nodes (X positions x Y positions, in logical order) with one logical topology.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    /// The job's name; `None` for a system-wide topology.
    pub name: Option<String>,
    pub xs: Vec<u32>,
    pub ys: Vec<u32>,
    pub x: AxisLayout,
    pub y: AxisLayout,
    pub allow_matching_rail: bool,
    pub preset: Option<Preset>,
}

impl Region {
    /// Physical coordinates along `axis`, indexed by logical position.
    pub fn positions(&self, axis: Axis) -> &[u32] {
        match axis {
            Axis::X => &self.xs,
            Axis::Y => &self.ys,
        }
    }

    pub fn layout(&self, axis: Axis) -> &AxisLayout {
        match axis {
            Axis::X => &self.x,
            Axis::Y => &self.y,
        }
    }

    pub fn nodes(&self) -> u32 {
        (self.xs.len() * self.ys.len()) as u32
    }

    /// Region-local node index of logical position `(i, j)`: `j * |xs| + i`.
    pub fn local_index(&self, i: u32, j: u32) -> u32 {
        j * self.xs.len() as u32 + i
    }

    /// Plant node ids of the region, in local-index order.
    pub fn node_ids(&self, plant: &Plant) -> Vec<u32> {
        self.ys
            .iter()
            .flat_map(|&y| self.xs.iter().map(move |&x| plant.node_id(x, y)))
            .collect()
    }

    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("job '{n}'"),
            None => "system".to_string(),
        }
    }
}

/// A validated configuration: the plant and the regions whose topologies are to be synthesised.
#[derive(Debug, Clone, PartialEq)]
pub struct System {
    pub plant: Plant,
    pub regions: Vec<Region>,
}

impl System {
    /// The region of the job named `job`, or the only region when `job` is `None`; a one-line
    /// error naming the jobs otherwise.
    pub fn region(&self, job: Option<&str>) -> Result<&Region> {
        let names = || {
            self.regions
                .iter()
                .filter_map(|r| r.name.as_deref())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match job {
            Some(name) if self.regions.iter().all(|r| r.name.is_none()) => {
                Err(RailxError::invalid(
                    "job",
                    name,
                    "the configuration has no [[jobs]], only its one [topology]",
                    "drop the job to use the whole system",
                ))
            }
            Some(name) => self
                .regions
                .iter()
                .find(|r| r.name.as_deref() == Some(name))
                .ok_or_else(|| {
                    RailxError::invalid(
                        "job",
                        name,
                        "no job of that name in the configuration",
                        format!("use one of {}", names()),
                    )
                }),
            None if self.regions.len() == 1 => Ok(&self.regions[0]),
            None => Err(RailxError::invalid(
                "job",
                "not given",
                "the configuration has several jobs, each a region of its own",
                format!("name one of {}", names()),
            )),
        }
    }
}

/// Validates a configuration and expands presets. Every rule broken gives a one-line error naming
/// the field (e.g. `jobs[1].topology.x[0].rails`), the rule and a valid alternative.
pub fn resolve(spec: &ConfigSpec) -> Result<System> {
    let plant = Plant::from_spec(&spec.system)?;
    let regions = match (&spec.topology, spec.jobs.is_empty()) {
        (Some(_), false) => {
            return Err(RailxError::invalid(
                "topology",
                "given with [[jobs]]",
                "a configuration has either one [topology] for the whole grid or [[jobs]] each with its own topology",
                "move the topology into each job, or drop [[jobs]]",
            ))
        }
        (None, true) => {
            return Err(RailxError::invalid(
                "topology",
                "missing",
                "a configuration needs a [topology] table or at least one [[jobs]] entry",
                "add [topology] with preset = \"hyperx\"",
            ))
        }
        (Some(topo), true) => {
            let xs: Vec<u32> = (0..plant.p).collect();
            let ys: Vec<u32> = (0..plant.q).collect();
            vec![resolve_region(&plant, None, xs, ys, topo, "topology")?]
        }
        (None, false) => resolve_jobs(&plant, &spec.jobs)?,
    };
    Ok(System { plant, regions })
}

fn resolve_jobs(plant: &Plant, jobs: &[JobSpec]) -> Result<Vec<Region>> {
    let mut owner: HashMap<(u32, u32), usize> = HashMap::new();
    let mut names: HashSet<&str> = HashSet::new();
    let mut regions = Vec::with_capacity(jobs.len());
    for (index, job) in jobs.iter().enumerate() {
        let field = format!("jobs[{index}]");
        if job.name.trim().is_empty() || !names.insert(job.name.as_str()) {
            return Err(RailxError::invalid(
                format!("{field}.name"),
                format!("{:?}", job.name),
                "every job needs a unique, non-empty name",
                format!("e.g. name = \"job-{index}\""),
            ));
        }
        check_positions(plant, &field, Axis::X, &job.xs)?;
        check_positions(plant, &field, Axis::Y, &job.ys)?;
        for &y in &job.ys {
            for &x in &job.xs {
                if let Some(&other) = owner.get(&(x, y)) {
                    return Err(RailxError::invalid(
                        format!("{field}.nodes"),
                        format!("node ({x}, {y})"),
                        format!(
                            "is also in job '{}'; jobs may not share nodes",
                            jobs[other].name
                        ),
                        "give each job a disjoint rectangle of the grid",
                    ));
                }
                owner.insert((x, y), index);
            }
        }
        regions.push(resolve_region(
            plant,
            Some(job.name.clone()),
            job.xs.clone(),
            job.ys.clone(),
            &job.topology,
            &format!("{field}.topology"),
        )?);
    }
    Ok(regions)
}

fn check_positions(plant: &Plant, field: &str, axis: Axis, positions: &[u32]) -> Result<()> {
    let extent = plant.extent(axis);
    let name = format!("{field}.nodes.{}", axis.lower());
    if positions.is_empty() {
        return Err(RailxError::invalid(
            name,
            "[]",
            "a job occupies at least one node along each axis",
            "e.g. x = [0, 4] for nodes 0..3",
        ));
    }
    let mut seen = HashSet::new();
    for &pos in positions {
        if pos >= extent {
            return Err(RailxError::invalid(
                name,
                pos,
                format!(
                    "node coordinates along {} must be below the grid extent {extent}",
                    axis.name()
                ),
                format!("use coordinates in 0..{extent}"),
            ));
        }
        if !seen.insert(pos) {
            return Err(RailxError::invalid(
                name,
                pos,
                "appears twice",
                "list each coordinate once",
            ));
        }
    }
    Ok(())
}

fn resolve_region(
    plant: &Plant,
    name: Option<String>,
    xs: Vec<u32>,
    ys: Vec<u32>,
    topo: &TopologySpec,
    field: &str,
) -> Result<Region> {
    let extents = [xs.len() as u32, ys.len() as u32];
    let [x_specs, y_specs] = match (topo.preset, &topo.x, &topo.y) {
        (Some(preset), None, None) => preset_dims(plant, preset, extents, field)?,
        (None, x, y) if x.is_some() || y.is_some() => {
            [x.clone().unwrap_or_default(), y.clone().unwrap_or_default()]
        }
        (Some(_), _, _) => {
            return Err(RailxError::invalid(
                format!("{field}.preset"),
                "given with x/y",
                "a topology is either a preset or the general form, not both",
                "drop preset, or drop x and y",
            ))
        }
        (None, _, _) => {
            return Err(RailxError::invalid(
                field,
                "empty",
                "a topology needs a preset or per-axis dimensions x and y",
                "e.g. preset = \"torus\"",
            ))
        }
    };
    let lines = [extents[1], extents[0]];
    let x = resolve_axis(
        plant,
        Axis::X,
        &x_specs,
        extents[0],
        lines[0],
        topo.allow_matching_rail,
        field,
    )?;
    let y = resolve_axis(
        plant,
        Axis::Y,
        &y_specs,
        extents[1],
        lines[1],
        topo.allow_matching_rail,
        field,
    )?;
    let is_global = |layout: &AxisLayout| {
        layout
            .dims
            .iter()
            .any(|d| d.kind == DimKind::GlobalAllToAll)
    };
    if is_global(&x) && is_global(&y) {
        return Err(RailxError::invalid(
            format!("{field}.y[0].kind"),
            "global-all-to-all",
            "only one axis can be a Dragonfly's global dimension; the other holds the groups",
            "use kind = \"all-to-all\" on one axis",
        ));
    }
    Ok(Region {
        name,
        xs,
        ys,
        x,
        y,
        allow_matching_rail: topo.allow_matching_rail,
        preset: topo.preset,
    })
}

/// Expands a preset to the general form for a region of `extents` = [along X, along Y] nodes.
fn preset_dims(
    plant: &Plant,
    preset: Preset,
    extents: [u32; 2],
    field: &str,
) -> Result<[Vec<DimSpec>; 2]> {
    let r = plant.r();
    let line = |extent: u32, kind: DimKind, rails: u32| -> Vec<DimSpec> {
        if extent < 2 {
            Vec::new()
        } else {
            vec![DimSpec {
                size: extent,
                kind,
                rails,
            }]
        }
    };
    let all_to_all = |axis: Axis, extent: u32| -> Result<Vec<DimSpec>> {
        if extent >= 2 && extent - 1 > r {
            return Err(RailxError::invalid(
                format!("{field}.preset"),
                format!("{:?} over {extent} nodes along {}", preset, axis.name()).to_lowercase(),
                format!(
                    "an all-to-all over {extent} nodes needs {} rails but r = m*n = {r}",
                    extent - 1
                ),
                format!(
                    "use at most r+1 = {} nodes along {}, preset = \"torus\", or x/y dimensions of kind = \"single-link-all-to-all\" (up to 2r+1 = {} nodes)",
                    r + 1,
                    axis.name(),
                    2 * r + 1
                ),
            ));
        }
        let copies = if extent >= 2 { r / (extent - 1) } else { 0 };
        Ok(line(
            extent,
            DimKind::AllToAll,
            copies * extent.saturating_sub(1),
        ))
    };
    Ok(match preset {
        Preset::Torus => [
            line(extents[0], DimKind::Ring, r),
            line(extents[1], DimKind::Ring, r),
        ],
        Preset::Hyperx => [
            all_to_all(Axis::X, extents[0])?,
            all_to_all(Axis::Y, extents[1])?,
        ],
        Preset::Dragonfly => {
            let groups = extents[0];
            let group_size = extents[1];
            if groups >= 2 && groups - 1 > group_size * r {
                return Err(RailxError::invalid(
                    format!("{field}.preset"),
                    format!("dragonfly with {groups} groups of {group_size} nodes"),
                    format!(
                        "each group has r = {r} global rails per node, {} in all, so at most {} groups",
                        group_size * r,
                        group_size * r + 1
                    ),
                    format!("use at most {} groups (grid P) or more nodes per group (grid Q)", group_size * r + 1),
                ));
            }
            [
                line(groups, DimKind::GlobalAllToAll, r),
                all_to_all(Axis::Y, group_size)?,
            ]
        }
    })
}

fn resolve_axis(
    plant: &Plant,
    axis: Axis,
    specs: &[DimSpec],
    extent: u32,
    lines: u32,
    allow_matching_rail: bool,
    field: &str,
) -> Result<AxisLayout> {
    let r = plant.r();
    let axis_field = format!("{field}.{}", axis.lower());
    let mut dims = Vec::with_capacity(specs.len());
    let mut stride: u64 = 1;
    let mut first_rail: u32 = 0;
    for (i, spec) in specs.iter().enumerate() {
        let dim_field = format!("{axis_field}[{i}]");
        check_dim(spec, &dim_field, specs.len(), lines, allow_matching_rail)?;
        dims.push(LogicalDim {
            size: spec.size,
            kind: spec.kind,
            rails: spec.rails,
            first_rail,
            stride: stride.min(u32::MAX as u64) as u32,
        });
        stride = stride.saturating_mul(spec.size as u64);
        first_rail = first_rail.saturating_add(spec.rails);
    }
    if stride != extent as u64 {
        let sizes: Vec<String> = specs.iter().map(|d| d.size.to_string()).collect();
        let shown = if sizes.is_empty() {
            "[]".to_string()
        } else {
            sizes.join(" x ")
        };
        return Err(RailxError::invalid(
            axis_field,
            format!("sizes {shown} = {stride}"),
            format!(
                "the logical dimensions' sizes must multiply to the {} extent, {extent} nodes",
                axis.name()
            ),
            format!("e.g. one dimension of size {extent}"),
        ));
    }
    if first_rail > r {
        let rails: Vec<String> = specs.iter().map(|d| d.rails.to_string()).collect();
        return Err(RailxError::invalid(
            axis_field,
            format!("rails {} = {first_rail}", rails.join(" + ")),
            format!("the rails of an axis add up to at most r = m*n = {r}"),
            "give the rail groups fewer rails (unused rails are allowed)",
        ));
    }
    Ok(AxisLayout { dims })
}

fn check_dim(
    spec: &DimSpec,
    field: &str,
    dims_on_axis: usize,
    lines: u32,
    allow_matching_rail: bool,
) -> Result<()> {
    let s = spec.size;
    if s < 2 {
        return Err(RailxError::invalid(
            format!("{field}.size"),
            s,
            "a logical dimension joins at least 2 nodes",
            "drop it (an axis of extent 1 has no dimensions: x = [])",
        ));
    }
    if spec.rails == 0 {
        return Err(RailxError::invalid(
            format!("{field}.rails"),
            0,
            "a logical dimension needs at least one rail",
            if spec.kind == DimKind::Ring {
                "e.g. rails = 2".to_string()
            } else {
                format!("e.g. rails = {}", rails_per_copy(spec.kind, s))
            },
        ));
    }
    match spec.kind {
        DimKind::Ring => Ok(()),
        DimKind::AllToAll => {
            if !spec.rails.is_multiple_of(s - 1) {
                let lower = (spec.rails / (s - 1)).max(1) * (s - 1);
                return Err(RailxError::invalid(
                    format!("{field}.rails"),
                    spec.rails,
                    format!(
                        "an all-to-all dimension of {s} nodes uses a multiple of size-1 = {} rails (one Hamiltonian cycle each)",
                        s - 1
                    ),
                    format!("use rails = {lower} or {}", lower + s - 1),
                ));
            }
            check_decomposition(s, field, allow_matching_rail)
        }
        DimKind::SingleLinkAllToAll => {
            let per_copy = rails_per_copy(spec.kind, s);
            if !spec.rails.is_multiple_of(per_copy) {
                let lower = (spec.rails / per_copy).max(1) * per_copy;
                return Err(RailxError::invalid(
                    format!("{field}.rails"),
                    spec.rails,
                    format!(
                        "a single-link all-to-all dimension of {s} nodes uses a multiple of ceil((size-1)/2) = {per_copy} rails (one undirected Hamiltonian cycle each{})",
                        if s.is_multiple_of(2) { ", the last a perfect matching" } else { "" }
                    ),
                    format!("use rails = {lower} or {}", lower + per_copy),
                ));
            }
            Ok(())
        }
        DimKind::GlobalAllToAll => {
            if dims_on_axis != 1 {
                return Err(RailxError::invalid(
                    format!("{field}.kind"),
                    "global-all-to-all",
                    "a global (Dragonfly) dimension must be the only logical dimension of its axis",
                    "use kind = \"all-to-all\" or preset = \"dragonfly\"",
                ));
            }
            if (s - 1) as u64 > spec.rails as u64 * lines as u64 {
                return Err(RailxError::invalid(
                    format!("{field}.rails"),
                    spec.rails,
                    format!(
                        "a global all-to-all of {s} nodes needs {} Hamiltonian cycles, but {lines} lines x {} rails hold fewer",
                        s - 1,
                        spec.rails
                    ),
                    format!("use rails >= {}", (s - 1).div_ceil(lines.max(1))),
                ));
            }
            check_decomposition(s, field, allow_matching_rail)
        }
    }
}

fn check_decomposition(s: u32, field: &str, allow_matching_rail: bool) -> Result<()> {
    if has_decomposition(s as usize) || allow_matching_rail {
        return Ok(());
    }
    Err(RailxError::invalid(
        format!("{field}.size"),
        s,
        format!("K*_{s} has no decomposition into {} Hamiltonian rail rings (none exists for 4 or 6 nodes)", s - 1),
        "set allow_matching_rail = true in the topology (one rail becomes 2-cycles) or use 3, 5 or 7 nodes",
    ))
}
