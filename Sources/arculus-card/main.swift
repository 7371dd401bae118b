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

// A parent may start us with signals blocked (Foundation's Process, some CI runners); the
// tool's own signals must arrive, or SIGTERM would be ignored and SIGUSR1 never tap the card.
var handledSignals = sigset_t()
sigemptyset(&handledSignals)
for number in [SIGINT, SIGTERM, SIGUSR1, SIGHUP] { sigaddset(&handledSignals, number) }
pthread_sigmask(SIG_UNBLOCK, &handledSignals, nil)

exit(Subcommands.dispatch(Array(CommandLine.arguments.dropFirst())))
