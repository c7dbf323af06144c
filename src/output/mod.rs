//! The files a campaign writes for later: regression files (failures replayed first by the
//! next run), the corpus kept between runs, the SARIF and lcov files and the HTML report
//! directory tests running in parallel add to, and the lock and atomic writes they share.
//! Each owns its format; the campaign decides when to write.

pub(crate) mod corpus_dir;
pub(crate) mod file_lock;
pub(crate) mod lcov_file;
pub(crate) mod regression;
pub(crate) mod report_dir;
pub(crate) mod sarif_file;
