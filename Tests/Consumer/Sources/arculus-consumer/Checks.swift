/// What the consumer found: each check it made, and which failed. The process exits 1 when any did.
final class Checks {
    private(set) var passed = 0
    private(set) var failures: [String] = []

    /// Records `condition`; `what` says what was checked.
    func expect(_ condition: Bool, _ what: String) {
        if condition {
            passed += 1
        } else {
            failures.append(what)
            print("FAIL: \(what)")
        }
    }

    /// Runs one part of the consumer; an error it throws is a failed check naming the part.
    func part(_ name: String, _ body: () throws -> Void) {
        do {
            try body()
            print("ok: \(name)")
        } catch {
            failures.append("\(name): \(error)")
            print("FAIL: \(name): threw \(error)")
        }
    }

    /// ``part(_:_:)`` for async work.
    func part(_ name: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            print("ok: \(name)")
        } catch {
            failures.append("\(name): \(error)")
            print("FAIL: \(name): threw \(error)")
        }
    }
}

/// A value the consumer cannot go on without.
struct Missing: Error, CustomStringConvertible {
    let description: String
}

/// `value`, or a ``Missing`` error naming `what`.
func require<T>(_ value: T?, _ what: String) throws -> T {
    guard let value else { throw Missing(description: "no \(what)") }
    return value
}
