//! Comparator circuits on MCHPRS, for a tick-by-tick comparison with scicraft_viz's engine
//! (benchmarks/bench_mchprs_comparator.py runs both and compares).
//!
//! usage: mchprs_cmp FILE BACKEND RT      BACKEND: plain | rp (redpiler)
//! FILE lines: `setblock X Y Z STATE`; `items X Y Z LEVEL` (a barrel whose contents give this comparator
//! level); `use RT X Y Z` (right-click that block RT redstone ticks after the start).
//! The world is built on a stone floor at y=3 (x, z in -10..10), dust takes its placement state, every
//! comparator gets a neighbour update (it reads the barrels), 20 rt settle on the plain engine; then,
//! for rt 0..=RT, the uses due run and the states printed are those after that redstone tick:
//! `GT X Y Z STATE [out=N]` (GT = 2 * rt game ticks; out = a comparator's block-entity output), every
//! block at rt 0 and then only changes.

use std::collections::HashMap;

use mchprs_blocks::block_entities::{BlockEntity, ContainerType};
use mchprs_blocks::blocks::Block;
use mchprs_blocks::BlockPos;
use mchprs_redpiler::{Compiler, CompilerOptions};
use mchprs_world::testing::TestWorld;
use mchprs_world::World;

const OFF: i32 = 16; // TestWorld stores non-negative chunk coordinates only

fn sh(x: i32, y: i32, z: i32) -> BlockPos {
    BlockPos::new(x + OFF, y + OFF, z + OFF)
}

fn parse_state(state: &str) -> Block {
    let (name, props) = match state.find('[') {
        Some(i) => (&state[..i], Some(&state[i + 1..state.len() - 1])),
        None => (state, None),
    };
    let mut full = if name.contains(':') { name.to_string() } else { format!("minecraft:{name}") };
    if full == "minecraft:redstone_repeater" {
        full = "minecraft:repeater".to_string();
    }
    let mut block = Block::from_name(&full).unwrap_or_else(|| panic!("unknown block {full}"));
    if let Some(props) = props {
        let map: HashMap<&str, &str> = props
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|kv| {
                let mut it = kv.splitn(2, '=');
                (it.next().unwrap().trim(), it.next().unwrap().trim())
            })
            .collect();
        block.set_properties(map);
    }
    block
}

fn canonical(block: Block) -> String {
    let mut props: Vec<(&str, String)> = block.properties().into_iter().collect();
    props.sort();
    let p: Vec<String> = props.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if p.is_empty() { block.get_name().to_string() } else { format!("{}[{}]", block.get_name(), p.join(",")) }
}

fn tick_plain(world: &mut TestWorld) {
    // as crates/core/src/plot/mod.rs Plot::tick (non-redpiler path)
    world.to_be_ticked.sort_by_key(|e| (e.ticks_left, e.tick_priority));
    for pending in &mut world.to_be_ticked {
        pending.ticks_left = pending.ticks_left.saturating_sub(1);
    }
    while world.to_be_ticked.first().map_or(1, |e| e.ticks_left) == 0 {
        let entry = world.to_be_ticked.remove(0);
        mchprs_redstone::tick(world.get_block(entry.pos), world, entry.pos);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).unwrap();
    let backend = args[2].as_str();
    let rts: u32 = args[3].parse().unwrap();
    let mut world = TestWorld::new(3, 3, 3);
    for x in -10..=10 {
        for z in -10..=10 {
            world.set_block(sh(x, 3, z), Block::Stone {});
        }
    }
    let mut placed: Vec<(i32, i32, i32)> = Vec::new();
    let mut uses: Vec<(u32, BlockPos)> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let n = |i: usize| f[i].parse::<i32>().unwrap();
        match f[0] {
            "setblock" => {
                world.set_block(sh(n(1), n(2), n(3)), parse_state(f[4]));
                placed.push((n(1), n(2), n(3)));
            }
            "items" => world.set_block_entity(
                sh(n(1), n(2), n(3)),
                BlockEntity::Container { comparator_override: n(4) as u8, inventory: Vec::new(), ty: ContainerType::Barrel },
            ),
            "use" => uses.push((n(1) as u32, sh(n(2), n(3), n(4)))),
            _ => panic!("bad line {line}"),
        }
    }
    placed.sort();
    placed.dedup();
    for &(x, y, z) in &placed {
        if let Block::RedstoneWire(_) = world.get_block(sh(x, y, z)) {
            let w = mchprs_redstone::wire::get_state_for_placement(&world, sh(x, y, z));
            world.set_block(sh(x, y, z), Block::RedstoneWire(w));
        }
    }
    for &(x, y, z) in &placed {
        let b = world.get_block(sh(x, y, z));
        if let Block::Comparator(_) = b {
            mchprs_redstone::update(b, &mut world, sh(x, y, z));
        }
    }
    for _ in 0..20 {
        tick_plain(&mut world);
    }
    let mut rp = match backend {
        "plain" => None,
        "rp" => {
            let mut c = Compiler::default();
            let bounds = (BlockPos::new(0, 0, 0), BlockPos::new(47, 47, 47));
            let ticks = world.to_be_ticked.clone();
            c.compile(&world, bounds, CompilerOptions::default(), ticks, Default::default());
            Some(c)
        }
        _ => panic!("unknown backend {backend}"),
    };
    let mut last: HashMap<(i32, i32, i32), String> = HashMap::new();
    for rt in 0..=rts {
        if rt > 0 {
            match &mut rp {
                Some(c) => c.tick(),
                None => tick_plain(&mut world),
            }
        }
        for &(t, pos) in &uses {
            if t == rt {
                match &mut rp {
                    Some(c) => c.on_use_block(pos),
                    None => {
                        mchprs_redstone::on_use(world.get_block(pos), &mut world, pos);
                    }
                }
            }
        }
        if let Some(c) = &mut rp {
            c.flush(&mut world);
        }
        for &(x, y, z) in &placed {
            let b = world.get_block(sh(x, y, z));
            let mut s = canonical(b);
            if let Block::Comparator(_) = b {
                let out = match world.get_block_entity(sh(x, y, z)) {
                    Some(BlockEntity::Comparator { output_strength }) => *output_strength,
                    _ => 0,
                };
                s = format!("{s} out={out}");
            }
            if last.get(&(x, y, z)) != Some(&s) {
                println!("{} {x} {y} {z} {s}", 2 * rt);
                last.insert((x, y, z), s);
            }
        }
    }
}
