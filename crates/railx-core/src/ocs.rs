//! OCS configurations: the `railx.ocs/v1` file format (README.md, Formats), their synthesis from a
//! validated system, and the port-level validity check every file passes before it is used.

use crate::error::{shown, RailxError, Result};
use crate::hamiltonian::{rail_successors, single_link_rails, DecompositionError};
use crate::plant::{Axis, Plant, Side};
use crate::spec::DimKind;
use crate::topology::{LogicalDim, Region, System};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub const FORMAT: &str = "railx.ocs/v1";

/// The `system` header of an OCS file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct OcsSystem {
    pub m: u32,
    pub n: u32,
    pub R: u32,
    pub grid: [u32; 2],
}

impl OcsSystem {
    pub fn of(plant: &Plant) -> OcsSystem {
        OcsSystem {
            m: plant.m,
            n: plant.n,
            R: plant.radix,
            grid: [plant.p, plant.q],
        }
    }
}

/// A message for a file that parses as JSON but not as an OCS file, naming the field that breaks
/// the format (`switches[3].circuits`, say) rather than a column of the file.
fn locate(value: &serde_json::Value, error: serde_json::Error) -> String {
    fn field<T: serde::de::DeserializeOwned>(v: &serde_json::Value) -> Option<String> {
        serde_json::from_value::<T>(v.clone())
            .err()
            .map(|e| e.to_string())
    }
    let Some(object) = value.as_object() else {
        return format!("expected a JSON object with format, system and switches ({error})");
    };
    let found = object.iter().find_map(|(key, v)| {
        let problem = match key.as_str() {
            "format" => field::<String>(v),
            "system" => field::<OcsSystem>(v),
            "job" => field::<Option<String>>(v),
            "switches" => match v.as_array() {
                None => Some(format!("expected a list of switches, found {v}")),
                Some(switches) => {
                    return switches.iter().enumerate().find_map(|(i, sw)| {
                        field::<SwitchConfig>(sw).map(|e| format!("switches[{i}]: {e}"))
                    })
                }
            },
            _ => None,
        };
        problem.map(|e| format!("{key}: {e}"))
    });
    found.unwrap_or_else(|| error.to_string())
}

/// One optical circuit switch and the circuits programmed into it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchConfig {
    pub id: String,
    pub dim: Axis,
    pub line: u32,
    pub rail: u32,
    pub radix: u32,
    pub circuits: Vec<[u32; 2]>,
}

/// A `railx.ocs/v1` file: the cross-connect tables of a whole system, or of one job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OcsConfig {
    pub format: String,
    pub system: OcsSystem,
    /// Present when the file holds one job's circuits only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    pub switches: Vec<SwitchConfig>,
}

impl OcsConfig {
    pub fn from_json(text: &str) -> Result<OcsConfig> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| RailxError::parse("OCS file", e))?;
        let config: OcsConfig = serde_json::from_value(value.clone())
            .map_err(|e| RailxError::parse("OCS file", locate(&value, e)))?;
        if config.format != FORMAT {
            return Err(RailxError::invalid(
                "format",
                shown(&config.format),
                "this reader understands one OCS format",
                format!("write \"format\": \"{FORMAT}\""),
            ));
        }
        Ok(config)
    }

    pub fn to_json(&self) -> String {
        // Serialising plain owned data cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn circuit_count(&self) -> usize {
        self.switches.iter().map(|s| s.circuits.len()).sum()
    }
}

/// A circuit seen from the topology: on switch (axis, line, rail), the node at position `plus`
/// along the axis has its + port joined to the - port of the node at position `minus`.
/// Orientation matters: it is the arc plus -> minus of the rail's ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Arc {
    pub axis: Axis,
    pub line: u32,
    pub rail: u32,
    pub plus: u32,
    pub minus: u32,
}

/// Checks that a file describes real hardware consistently: matching system, known switches with
/// consistent ids, ports that exist, every port in at most one circuit, and every circuit joining a
/// + port to a - port. Returns the circuits as arcs.
pub fn check_ports(config: &OcsConfig) -> Result<Vec<Arc>> {
    let sys = &config.system;
    let plant_grid = sys.grid;
    let r = sys.m.saturating_mul(sys.n);
    let mut seen_switch: HashMap<(Axis, u32, u32), usize> = HashMap::new();
    let mut arcs = Vec::with_capacity(config.circuit_count());
    for (index, sw) in config.switches.iter().enumerate() {
        let place = format!("switch {} (switches[{index}])", shown(&sw.id));
        let expected_id = Plant::switch_id(sw.dim, sw.line, sw.rail);
        if sw.id != expected_id {
            return Err(RailxError::verification(
                place,
                format!("id does not match dim/line/rail; it should be \"{expected_id}\""),
            ));
        }
        let (lines, extent) = match sw.dim {
            Axis::X => (plant_grid[1], plant_grid[0]),
            Axis::Y => (plant_grid[0], plant_grid[1]),
        };
        if sw.line >= lines {
            return Err(RailxError::verification(
                place,
                format!("line {} is outside the grid (lines 0..{lines})", sw.line),
            ));
        }
        if sw.rail >= r {
            return Err(RailxError::verification(
                place,
                format!("rail {} does not exist (rails 0..{r}, r = m*n)", sw.rail),
            ));
        }
        if sw.radix != sys.R {
            return Err(RailxError::verification(
                place,
                format!("radix {} differs from the system's R = {}", sw.radix, sys.R),
            ));
        }
        if let Some(first) = seen_switch.insert((sw.dim, sw.line, sw.rail), index) {
            return Err(RailxError::verification(
                place,
                format!("is listed twice (also switches[{first}])"),
            ));
        }
        let mut used: HashMap<u32, [u32; 2]> = HashMap::with_capacity(sw.circuits.len() * 2);
        for &circuit in &sw.circuits {
            if circuit[0] == circuit[1] {
                return Err(RailxError::verification(
                    place,
                    format!(
                        "circuit {circuit:?} joins port {} to itself; a circuit joins a + port (odd) to a - port (even)",
                        circuit[0]
                    ),
                ));
            }
            for port in circuit {
                if port >= sw.radix {
                    return Err(RailxError::verification(
                        place,
                        format!(
                            "circuit {circuit:?}: port {port} does not exist (ports 0..{})",
                            sw.radix
                        ),
                    ));
                }
                if port / 2 >= extent {
                    return Err(RailxError::verification(
                        place,
                        format!("circuit {circuit:?}: port {port} belongs to node {} outside the grid (0..{extent})", port / 2),
                    ));
                }
                if let Some(other) = used.insert(port, circuit) {
                    return Err(RailxError::verification(
                        place,
                        format!("port {port} is in two circuits, {other:?} and {circuit:?}"),
                    ));
                }
            }
            let (a, side_a) = Plant::port_owner(circuit[0]);
            let (b, side_b) = Plant::port_owner(circuit[1]);
            let (plus, minus) = match (side_a, side_b) {
                (Side::Plus, Side::Minus) => (a, b),
                (Side::Minus, Side::Plus) => (b, a),
                _ => {
                    return Err(RailxError::verification(
                        place,
                        format!("circuit {circuit:?} joins two {} ports; a circuit joins a + port (odd) to a - port (even)", if side_a == Side::Plus { "+" } else { "-" }),
                    ))
                }
            };
            arcs.push(Arc {
                axis: sw.dim,
                line: sw.line,
                rail: sw.rail,
                plus,
                minus,
            });
        }
    }
    Ok(arcs)
}

/// The circuits of every rail of a logical dimension on one line, as arcs `(c, d)` between
/// coordinates of the dimension: coordinate c's + port on rail `first_rail + t` joins coordinate
/// d's - port. Empty for a rail left unused (a global dimension's rails past its last cycle).
fn rail_arcs(
    dim: &LogicalDim,
    line_index: u32,
    allow_matching_rail: bool,
) -> Result<Vec<Vec<(u32, u32)>>> {
    let s = dim.size;
    let refused = |e: DecompositionError| {
        RailxError::invalid(
            "topology",
            format!("size {s}"),
            e.to_string(),
            "set allow_matching_rail = true",
        )
    };
    let successor_arcs =
        |succ: &[u32]| -> Vec<(u32, u32)> { (0..s).zip(succ.iter().copied()).collect() };
    Ok(match dim.kind {
        DimKind::Ring => {
            let ring: Vec<u32> = (0..s).map(|c| (c + 1) % s).collect();
            vec![successor_arcs(&ring); dim.rails as usize]
        }
        DimKind::AllToAll => {
            let cycles = rail_successors(s as usize, allow_matching_rail).map_err(refused)?;
            (0..dim.rails)
                .map(|t| successor_arcs(&cycles[(t % (s - 1)) as usize]))
                .collect()
        }
        DimKind::SingleLinkAllToAll => {
            let rails = single_link_rails(s as usize).map_err(refused)?;
            (0..dim.rails)
                .map(|t| rails[(t as usize) % rails.len()].clone())
                .collect()
        }
        DimKind::GlobalAllToAll => {
            // Line j carries cycles j*rails .. j*rails + rails - 1 (README.md: global-all-to-all).
            let cycles = rail_successors(s as usize, allow_matching_rail).map_err(refused)?;
            (0..dim.rails)
                .map(|t| {
                    cycles
                        .get((line_index * dim.rails + t) as usize)
                        .map_or_else(Vec::new, |succ| successor_arcs(succ))
                })
                .collect()
        }
    })
}

/// Appends the arcs that realise `region`'s topology along `axis`.
fn region_axis_arcs(region: &Region, axis: Axis, arcs: &mut Vec<Arc>) -> Result<()> {
    let positions = region.positions(axis);
    let lines = region.positions(match axis {
        Axis::X => Axis::Y,
        Axis::Y => Axis::X,
    });
    let extent = positions.len() as u32;
    for dim in &region.layout(axis).dims {
        let fiber_bases: Vec<u32> = (0..extent).filter(|&p| dim.digit(p) == 0).collect();
        for (line_index, &line) in lines.iter().enumerate() {
            let rails = rail_arcs(dim, line_index as u32, region.allow_matching_rail)?;
            for (t, rail_arcs) in rails.iter().enumerate() {
                let rail = dim.first_rail + t as u32;
                for &base in &fiber_bases {
                    for &(c, d) in rail_arcs {
                        let u = dim.with_digit(base, c);
                        let v = dim.with_digit(base, d);
                        arcs.push(Arc {
                            axis,
                            line,
                            rail,
                            plus: positions[u as usize],
                            minus: positions[v as usize],
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// The arcs realising one region's topology.
pub fn region_arcs(region: &Region) -> Result<Vec<Arc>> {
    let mut arcs = Vec::new();
    for axis in Axis::BOTH {
        region_axis_arcs(region, axis, &mut arcs)?;
    }
    Ok(arcs)
}

/// Builds a `railx.ocs/v1` configuration from arcs. With `all_switches`, every switch of the plant
/// is listed (empty ones too); otherwise only those carrying a circuit.
pub fn config_from_arcs(
    plant: &Plant,
    job: Option<String>,
    arcs: &[Arc],
    all_switches: bool,
) -> OcsConfig {
    let r = plant.r();
    let x_count = (plant.q * r) as usize;
    let slot = |axis: Axis, line: u32, rail: u32| -> usize {
        match axis {
            Axis::X => (line * r + rail) as usize,
            Axis::Y => x_count + (line * r + rail) as usize,
        }
    };
    let mut tables: Vec<Vec<[u32; 2]>> = vec![Vec::new(); plant.switches() as usize];
    for a in arcs {
        tables[slot(a.axis, a.line, a.rail)].push([
            Plant::port(a.plus, Side::Plus),
            Plant::port(a.minus, Side::Minus),
        ]);
    }
    let mut switches = Vec::new();
    for axis in Axis::BOTH {
        for line in 0..plant.lines(axis) {
            for rail in 0..r {
                let mut circuits = std::mem::take(&mut tables[slot(axis, line, rail)]);
                if circuits.is_empty() && !all_switches {
                    continue;
                }
                circuits.sort_unstable();
                switches.push(SwitchConfig {
                    id: Plant::switch_id(axis, line, rail),
                    dim: axis,
                    line,
                    rail,
                    radix: plant.radix,
                    circuits,
                });
            }
        }
    }
    OcsConfig {
        format: FORMAT.to_string(),
        system: OcsSystem::of(plant),
        job,
        switches,
    }
}

/// The cross-connect tables of the whole system: every region's circuits on the shared switches.
pub fn synthesize(system: &System) -> Result<OcsConfig> {
    let mut arcs = Vec::new();
    for region in &system.regions {
        arcs.extend(region_arcs(region)?);
    }
    Ok(config_from_arcs(&system.plant, None, &arcs, true))
}

/// One configuration per job (only the switches that job uses), for per-job deployment.
pub fn synthesize_jobs(system: &System) -> Result<Vec<OcsConfig>> {
    system
        .regions
        .iter()
        .map(|region| {
            Ok(config_from_arcs(
                &system.plant,
                region.name.clone(),
                &region_arcs(region)?,
                false,
            ))
        })
        .collect()
}
