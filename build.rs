//! Compiles the paper's Figure 1 (reference/figure1.cpp), and the Memento
//! lookup written from its specification (reference/memento.cpp), with the
//! C++ compiler `cc` finds for the target, at -O3, when the `reference`
//! feature is on. Cross builds use the cross C++ compiler, so the reference that
//! aarch64 kernels are checked against is itself built for aarch64.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "reference")]
    {
        println!("cargo:rerun-if-changed=reference/figure1.cpp");
        println!("cargo:rerun-if-changed=reference/memento.cpp");
        cc::Build::new()
            .cpp(true)
            .file("reference/figure1.cpp")
            .file("reference/memento.cpp")
            .opt_level(3)
            .flag_if_supported("-std=c++11")
            .warnings(true)
            .compile("jumpshard_figure1");
    }
}
