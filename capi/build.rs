//! Gives the shared library its SONAME on Linux, which carries the ABI
//! version as cargo-c sets it: `libjumpshard.so.MAJOR` from 1.0 on, and
//! `libjumpshard.so.0.MINOR` before, where every 0.x minor release may break
//! the ABI (docs/c-abi.md states the policy).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let var = |name| std::env::var(name).expect("cargo sets the package version");
        let major = var("CARGO_PKG_VERSION_MAJOR");
        let abi = match major.as_str() {
            "0" => format!("0.{}", var("CARGO_PKG_VERSION_MINOR")),
            _ => major,
        };
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libjumpshard.so.{abi}");
    }
}
