/// The error `body` throws when it is an `E`, or nil (when it returns, or throws something else):
/// for tests that compare the exact error case a call fails with.
public func thrownError<E: Error>(_ body: () throws -> Void) -> E? {
    do { try body() } catch { return error as? E }
    return nil
}

/// ``thrownError(_:)`` of an async body.
public func thrownError<E: Error>(_ body: () async throws -> Void) async -> E? {
    do { try await body() } catch { return error as? E }
    return nil
}
