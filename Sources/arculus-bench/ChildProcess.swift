#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pid of the child running now (0: none), for the signal handlers of
/// `ChildProcess.stopChildrenOnSignals()`. Written only by the main thread.
nonisolated(unsafe) private var runningChild: pid_t = 0

/// A process the benchmark starts (a served card or the minimal responder) and always ends:
/// SIGTERM, then SIGKILL after a grace period, only ever to its own pid.
final class ChildProcess {
    let pid: pid_t
    let commandLine: String
    private var exited = false

    /// Starts `path` with `arguments`; stdout and stderr go to `logPath` (appended).
    init(path: String, arguments: [String], logPath: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, path, &actions, nil, argv, environ)
        guard status == 0 else {
            throw BenchError("cannot start \(path): \(String(cString: strerror(status)))")
        }
        pid = child
        commandLine = ([path] + arguments).joined(separator: " ")
        runningChild = child
    }

    /// If the benchmark is interrupted or killed (SIGINT, SIGTERM, SIGHUP), its child goes too:
    /// a served card left behind would keep the vpcd slot for everyone else.
    static func stopChildrenOnSignals() {
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number) { number in
                if runningChild > 0 { kill(runningChild, SIGTERM) }
                _exit(128 + number)
            }
        }
    }

    deinit {
        stop()
    }

    /// Whether it is still running (reaps it if not).
    var isRunning: Bool {
        guard !exited else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }

    /// SIGTERM, wait up to `grace` seconds, then SIGKILL; always reaps.
    func stop(grace: Double = 5) {
        defer { if runningChild == pid { runningChild = 0 } }
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = monotonicNanoseconds() + UInt64(grace * 1e9)
        while monotonicNanoseconds() < deadline {
            if !isRunning { return }
            usleep(2_000)
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exited = true
    }

    /// The path of the running executable (`/proc/self/exe`).
    static var currentExecutable: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
