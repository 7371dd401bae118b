// arculus-card: the command-line tool. This file only dispatches; each subcommand lives in
// its own file (`ServeCommand.swift`, ...) as a type conforming to `Subcommand`. To add one,
// write its file and list its type in `Subcommands.all`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A closed stdout or stderr (the reading end of a pipe went away) must not kill a card that
// is serving a reader: write errors are simply ignored instead.
signal(SIGPIPE, SIG_IGN)

exit(Subcommands.dispatch(Array(CommandLine.arguments.dropFirst())))
