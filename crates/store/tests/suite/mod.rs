mod branches;
mod crash;
mod export;
mod migrations;
mod search;
mod sessions;
mod summaries;
