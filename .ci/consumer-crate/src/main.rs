//! Known answers from the packaged `jumpshard` crate, built without its
//! default features (no C++ compiler, no rayon): one key, a batch on the
//! best kernel and on the scalar one, and replica sets against the golden
//! lines `plain KEY N K MEMBERS...` read from standard input
//! (testdata/replicas/golden.txt).

use std::io::BufRead;

use jumpshard::{replicas, BucketCount, Kernel};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The paper's example, and the README's C batch.
    assert_eq!(
        jumpshard::bucket(1253737204188795044, BucketCount::new(100)?),
        86
    );
    let keys = [0, 1, 1253737204188795044];
    let twelve = BucketCount::new(12)?;
    let mut shards = [u32::MAX; 3];
    jumpshard::batch(&keys, twelve, &mut shards)?;
    assert_eq!(shards, [0, 6, 9]);
    let mut scalar = [u32::MAX; 3];
    Kernel::scalar().batch(&keys, twelve, &mut scalar)?;
    assert_eq!(scalar, shards);
    // A bad count is an error that names it, not a panic.
    assert!(BucketCount::new(0).is_err());

    let mut checked = 0;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.first() != Some(&"plain") {
            continue;
        }
        let key: u64 = fields[1].parse()?;
        let n = BucketCount::new(fields[2].parse()?)?;
        let k: usize = fields[3].parse()?;
        let want: Vec<u32> = fields[4..]
            .iter()
            .map(|m| m.parse())
            .collect::<Result<_, _>>()?;
        let mut set = vec![u32::MAX; k];
        replicas::set(key, n, &mut set)?;
        assert_eq!(set, want, "{line}");
        let mut column = vec![u32::MAX; k];
        let mut columns: Vec<&mut [u32]> = column.chunks_mut(1).collect();
        replicas::batch(&[key], n, &mut columns)?;
        assert_eq!(column, want, "{line}");
        checked += 1;
    }
    assert!(checked > 0, "no golden replica sets on standard input");
    println!("the packaged jumpshard: bucket, batch and {checked} replica sets as expected");
    Ok(())
}
