import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// A child process started with `posix_spawn` and a clean signal state, whose stdout can be read.
///
/// Not Foundation's `Process`: it starts the child with the spawning thread's signal mask, and
/// the threads tests run on (dispatch workers) block most signals. A child that inherits that
/// mask never sees SIGTERM, so `terminate()` would not stop an `arculus-card serve`. Here the
/// child starts with nothing blocked and default dispositions, as from a shell.
final class ChildProcess {
    let pid: pid_t
    /// The read end of the child's stdout.
    let output: FileHandle
    private var exited = false

    init(executable: String, arguments: [String]) throws {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw TestFailure("pipe failed: \(String(cString: strerror(errno)))") }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var nothing = sigset_t()
        sigemptyset(&nothing)
        posix_spawnattr_setsigmask(&attributes, &nothing)
        var terminating = sigset_t()
        sigemptyset(&terminating)
        for number in [SIGTERM, SIGINT, SIGUSR1, SIGPIPE] { sigaddset(&terminating, number) }
        posix_spawnattr_setsigdefault(&attributes, &terminating)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        close(pipeEnds[1])
        guard result == 0 else {
            close(pipeEnds[0])
            throw TestFailure("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
        output = FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true)
    }

    deinit {
        if !exited {
            kill(pid, SIGKILL)
            _ = waitForExit(timeout: .seconds(5))
        }
    }

    /// Whether the child still runs (reaps it when it has exited).
    var isRunning: Bool {
        guard !exited else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }

    func signal(_ number: Int32) {
        if !exited { kill(pid, number) }
    }

    /// Waits until the child exits; false when `timeout` passed first.
    func waitForExit(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while isRunning {
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }
}
