mod crash;
mod migrations;
mod sessions;
