# cs_bpf: the seccomp-BPF generator (gen/), its readable views, the OCI
# seccomp import/export (dsl/, gen/) and the userspace BPF interpreter used
# to verify programs (verify/). See docs/bpf-layout.md.
add_library(cs_bpf STATIC
  ${CS_SOURCE_ROOT}/gen/sc_rules.c
  ${CS_SOURCE_ROOT}/gen/bpf_gen.c
  ${CS_SOURCE_ROOT}/verify/bpf_interp.c
  ${CS_SOURCE_ROOT}/dsl/oci_import.c
  ${CS_SOURCE_ROOT}/dsl/pnetc_oci.c
  ${CS_SOURCE_ROOT}/gen/emit_oci.c
)
target_include_directories(cs_bpf PUBLIC ${CS_SOURCE_ROOT}/gen ${CS_SOURCE_ROOT}/verify
                                         ${CS_SOURCE_ROOT}/dsl)
# cs_emit: gen/out_file.c, so pnetc's outputs appear whole or not at all.
target_link_libraries(cs_bpf PUBLIC cs_diag cs_emit PkgConfig::SECCOMP PkgConfig::JANSSON)
