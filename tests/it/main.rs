//! harvey's integration tests, in one test binary: each module was a test binary of its own,
//! and every one of them linked revm and foundry-compilers. Run one module with
//! `cargo test --test it campaign::` (any module name, or a full test path).
//!
//! The tests share one process and run on parallel threads, so none may change process
//! state another reads: no `std::env::set_var` (settings such as the solc search path are
//! passed explicitly, see `harvey::project::Environment`), and anything memoized per
//! process (`harvey::project::compiled`) is shared by every module.

mod support;

mod all_violations;
mod all_violations_witness;
mod budgets;
mod campaign;
mod chain;
mod chain_settings;
mod chains;
mod chains_witness;
mod cheatcodes;
mod corpus;
mod coupled;
mod detectors;
mod detectors_witness;
mod factories;
mod factories_witness;
mod forge_fuzz;
mod forge_fuzz_witness;
mod forge_suites;
mod forge_suites_witness;
mod foundry_project;
mod hostile;
mod html_report;
mod independence;
mod invariant_skips;
mod invariants;
mod lending_witness;
mod lookahead;
mod macro_ui;
mod places;
mod prediction;
mod prediction_witness;
mod project;
mod property_libraries;
mod readme_sample;
mod reports;
mod reports_witness;
mod reverting;
mod rust_properties;
mod rust_properties_witness;
mod sarif;
mod sequences;
mod sequences_witness;
mod sites;
mod sparse_loop;
mod stateless_harnesses;
mod stateless_harnesses_witness;
mod surface;
mod surface_witness;
mod targets;
mod targets_reached;
mod tool_configs;
mod tool_configs_witness;
mod witness;
