#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread of its own (`pthread_create`) running a Swift closure: for loops that block in
/// system calls (a socket, a pipe), which must not occupy a thread of Swift's concurrency pool.
///
/// The thread is joinable: ``join()`` waits for it, or ``detach()`` lets it end on its own.
/// Exactly one of them should be called, once.
public struct POSIXThread {
    private let id: pthread_t

    /// Starts a thread that runs `body` (which keeps alive what it captures until it returns).
    public static func start(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) -> POSIXThread {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Glibc)
        var id = pthread_t()
        #else
        var id: pthread_t?
        #endif
        let status = pthread_create(&id, nil, { raw in
            #if canImport(Glibc)
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            #else
            let body = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
            #endif
            body.run()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            throw SystemCallError("pthread_create", code: status)
        }
        #if canImport(Glibc)
        return POSIXThread(id: id)
        #else
        return POSIXThread(id: id!)
        #endif
    }

    /// Waits for the thread to end.
    public func join() {
        pthread_join(id, nil)
    }

    /// Lets the thread end on its own: nothing will join it.
    public func detach() {
        pthread_detach(id)
    }

    /// The closure, as a class so that it travels through `pthread_create`'s `void *`.
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
