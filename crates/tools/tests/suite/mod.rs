//! One module per concern.
mod confinement;
mod files;
mod shell;
mod skills;
