import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The `URLSession` delegate of one ``HTTPExchange``: it gathers each request's answer and hands
/// it, once, to the task that awaits it, and it is where the SDK's limits on a server are kept:
///
/// - no redirect is followed: a `3xx` is the answer (a FIDO2 API call that is sent elsewhere
///   would take the session cookie and the card's signed response with it, and an `https`
///   server could send them to `http`);
/// - an answer is at most ``HTTPExchange/answerLimit`` bytes: a longer one (declared or sent) is
///   cut off at once, so a server cannot fill the app's memory;
/// - the caller's deadline and cancellation end the wait whatever the server does (a server that
///   trickles a byte at a time never times out `URLSession`'s idle timer).
///
/// `@unchecked Sendable`: the delegate protocol makes it an `NSObject`; its state is under a `Mutex`.
final class HTTPAnswerReceiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// How a request ended.
    enum Outcome: Sendable {
        /// The server answered (a redirect included); the body is complete.
        case answered(HTTPURLResponse, Data)
        /// The request failed (the network library's error, kept as a `URLError` where it is one).
        case failed(URLError?, String)
        /// The answer is longer than the limit (its declared length, when it declared one).
        case tooLarge(declared: Int64?)
        /// The caller's deadline passed first.
        case deadline
        /// The task awaiting it was cancelled.
        case cancelled
    }

    private enum Slot {
        /// Awaited (or not yet) while the answer comes in.
        case pending(CheckedContinuation<Outcome, Never>?, URLSessionTask?, Data)
        /// Ended; the outcome is kept until it is awaited.
        case ended(Outcome)
        /// Ended and delivered.
        case delivered
    }

    private let limit: Int
    private let slots = Mutex<[Int: Slot]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Starts `task` and waits for its outcome, `deadline` at most; cancelling the calling task
    /// ends the wait with ``Outcome/cancelled``.
    func outcome(of task: URLSessionDataTask, deadline: Duration) async -> Outcome {
        let id = task.taskIdentifier
        slots.withLock { $0[id] = .pending(nil, task, Data()) }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: deadline)
            if !Task.isCancelled { self?.end(id, .deadline) }
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let ready = slots.withLock { slots -> Outcome? in
                    switch slots[id] {
                    case .pending(_, let task, let data):
                        slots[id] = .pending(continuation, task, data)
                        return nil
                    case .ended(let outcome):
                        slots[id] = .delivered
                        return outcome
                    case .delivered, nil:
                        preconditionFailure("HTTP request \(id) was awaited twice")
                    }
                }
                if let ready {
                    continuation.resume(returning: ready)
                } else {
                    task.resume()
                }
            }
        } onCancel: {
            end(id, .cancelled)
        }
    }

    /// Ends request `id` with `outcome` unless it has ended already; the request is stopped.
    private func end(_ id: Int, _ outcome: Outcome) {
        let (continuation, task) = slots.withLock { slots -> (CheckedContinuation<Outcome, Never>?, URLSessionTask?) in
            guard case .pending(let continuation, let task, _) = slots[id] else { return (nil, nil) }
            slots[id] = continuation == nil ? .ended(outcome) : .delivered
            return (continuation, task)
        }
        if case .answered = outcome {} else { task?.cancel() }
        continuation?.resume(returning: outcome)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        if response.expectedContentLength > Int64(limit) {
            completionHandler(.cancel)
            end(dataTask.taskIdentifier, .tooLarge(declared: response.expectedContentLength))
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let overflow = slots.withLock { slots -> Bool in
            guard case .pending(let continuation, let task, var gathered) = slots[id] else { return false }
            guard gathered.count + data.count <= limit else { return true }
            gathered.append(data)
            slots[id] = .pending(continuation, task, gathered)
            return false
        }
        if overflow { end(id, .tooLarge(declared: nil)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        let gathered = slots.withLock { slots -> Data? in
            guard case .pending(_, _, let data) = slots[id] else { return nil }
            return data
        }
        guard let gathered else { return }
        if let error {
            end(id, Self.failure(error))
        } else if let response = task.response as? HTTPURLResponse {
            end(id, .answered(response, gathered))
        } else {
            end(id, .failed(nil, "the answer is not HTTP"))
        }
    }

    /// Forgets a delivered request.
    func forget(_ task: URLSessionTask) {
        slots.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
    }

    /// The network library's error as a `URLError` where it is one (Linux's Foundation hands
    /// some over as an `NSError` of `NSURLErrorDomain`), and its text.
    private static func failure(_ error: any Error) -> Outcome {
        var urlError = error as? URLError
        let bridged = error as NSError
        if urlError == nil, bridged.domain == NSURLErrorDomain { urlError = URLError.Code(rawValue: bridged.code).map { URLError($0) } }
        return .failed(urlError, error.localizedDescription)
    }
}
