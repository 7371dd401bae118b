import ArculusSDK

extension ArculusFidoNaming {
    /// The command line's names for the SDK's, read from the table ``SDKOperation/all``: an
    /// operation is its command (`sdk change-pin` for `changePin(oldPin:newPin:)`), a parameter the
    /// option that gives it (`--old-pin` for `oldPin`). The SDK writes one message; this is how
    /// `arculus-card sdk` prints it in its own terms.
    static let commandLine = ArculusFidoNaming(
        subject: { "sdk " + SDKOperation.running($0).name },
        call: { "sdk " + SDKOperation.running($0).name },
        parameter: { parameter, operation in
            // A parameter no option gives (optionsResponse.*) comes only from Swift callers.
            operation.flatMap { SDKOperation.running($0).option(giving: parameter) } ?? parameter.rawValue
        })
}
