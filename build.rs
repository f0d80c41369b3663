//! Compiles the paper's Figure 1 (reference/figure1.cpp) with the C++
//! compiler `cc` finds for the target, at -O3, when the `reference` feature
//! is on. Cross builds use the cross C++ compiler, so the reference that
//! aarch64 kernels are checked against is itself built for aarch64.
//!
//! On Linux it also gives the shared library its SONAME, which carries the
//! ABI version as cargo-c sets it: `libjumpshard.so.MAJOR` from 1.0 on, and
//! `libjumpshard.so.0.MINOR` before, where every 0.x minor release may break
//! the ABI (the README's "Install" section states the policy).

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
    #[cfg(feature = "reference")]
    {
        println!("cargo:rerun-if-changed=reference/figure1.cpp");
        cc::Build::new()
            .cpp(true)
            .file("reference/figure1.cpp")
            .opt_level(3)
            .flag_if_supported("-std=c++11")
            .warnings(true)
            .compile("jumpshard_figure1");
    }
}
