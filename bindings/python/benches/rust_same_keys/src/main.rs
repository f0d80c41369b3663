//! `rust-same-keys KEYS.u64 N FROM TO REPEAT`: the best-of-REPEAT seconds of
//! Figure 1 (the C++ reference), `jumpshard::batch` among N (into a
//! reused output and into a new one) and
//! `Resize::plan` from FROM to TO (into a new plan, as a Python call, and
//! into one reused), on one thread, over the keys of a u64le
//! file, as one JSON object. bench_batch.py runs it on the keys it times
//! the Python calls on.

use std::time::Instant;

use jumpshard::{BucketCount, MovePlan, Resize};

fn best(repeat: usize, mut f: impl FnMut()) -> f64 {
    (0..repeat)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, n, from, to, repeat] = args.as_slice() else {
        return Err("usage: rust-same-keys KEYS.u64 N FROM TO REPEAT".into());
    };
    let bytes = std::fs::read(path)?;
    let keys: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    let n = BucketCount::new(n.parse()?)?;
    let resize = Resize::new(
        BucketCount::new(from.parse()?)?,
        BucketCount::new(to.parse()?)?,
    )?;
    let repeat: usize = repeat.parse()?;
    let mut figure1 = vec![0i32; keys.len()];
    let mut out = vec![0u32; keys.len()];
    let mut plan = MovePlan::new();
    let figure1_s = best(repeat, || {
        jumpshard::reference::batch(&keys, n.get() as i32, &mut figure1)
    });
    let batch_s = best(repeat, || {
        jumpshard::batch(&keys, n, &mut out).expect("same lengths")
    });
    // A new output, as `jumpshard.batch(keys, n)` makes in Python.
    let batch_new_s = best(repeat, || {
        let mut fresh = vec![0u32; keys.len()];
        jumpshard::batch(&keys, n, &mut fresh).expect("same lengths")
    });
    // A Python call gets a new plan every time; a Rust loop may keep one.
    let plan_s = best(repeat, || {
        let mut fresh = MovePlan::new();
        resize.plan(&keys, 0, &mut fresh);
    });
    let plan_reused_s = best(repeat, || resize.plan(&keys, 0, &mut plan));
    println!(
        "{{\"keys\":{},\"kernel\":\"{}\",\"figure1_s\":{figure1_s},\"batch_s\":{batch_s},\"batch_new_s\":{batch_new_s},\"plan_s\":{plan_s},\"plan_reused_s\":{plan_reused_s},\"moved\":{}}}",
        keys.len(),
        jumpshard::active_kernel().name(),
        plan.len()
    );
    Ok(())
}
