//! One command line as the dispatch hands it to its handler, and what the
//! handler answers: go on reading, or leave the loop.

use super::command::{self, CommandError};
use vampirc_uci::UciMessage;

/// What a command handler returns: how the loop goes on, or the error to report.
pub type Handled = Result<Flow, CommandError>;

/// Whether the loop goes on after a command.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// Leave the loop (`quit`).
    Quit,
}

/// One command as the dispatch hands it to its handler.
pub struct Call<'a> {
    /// The command's name (its entry in the command table, `COMMANDS`).
    pub name: &'static str,
    /// How the command is written.
    pub usage: &'static str,
    /// The whole line, trimmed.
    pub line: &'a str,
    /// The line after the command name, trimmed.
    pub args: &'a str,
}

impl Call<'_> {
    /// Parses the line as the standard message this command is, with vampirc-uci.
    pub fn standard(&self) -> Result<UciMessage, CommandError> {
        command::standard(self.name, self.usage, self.line)
    }

    /// The error for a line that does not fit the command's usage.
    pub fn usage_error(&self) -> CommandError {
        CommandError::Usage { command: self.name, usage: self.usage }
    }
}
