// The README's first SDK example, as written there between the `// README` markers: the seed's
// minimal client-direct example with a local server's address (and a plain user name). The
// consumer package checks that the README's block is this one line for line; seed-app runs it
// (`seed-app readme register|authenticate`, Tests/Flows/test_seed_code.py).

// README: The SDK
import ArculusFidoSDKFramework

let arculusFido = ArculusFido()

// Registration
func register() async {
    let fidoServer = ArculusFidoServer(domain: "http://localhost:8080")
    fidoServer.registrationBeginEndpoint = "fidoapi/certify/attestation/options"
    fidoServer.registrationCompleteEndpoint = "fidoapi/certify/attestation/result"

    let result = await arculusFido.registerUser(
        fidoServer: fidoServer,
        pin: "123456",
        username: "alice@example.com",
        displayName: "My Device",
        relyingParty: "example.com"
    )
    print("Registration: \(result)")
}

// Authentication
func authenticate() async {
    let fidoServer = ArculusFidoServer(domain: "http://localhost:8080")
    fidoServer.authorizationBeginEndpoint = "fidoapi/certify/assertion/options"
    fidoServer.authorizationCompleteEndpoint = "fidoapi/certify/assertion/result"

    let result = await arculusFido.authenticateUser(
        fidoServer: fidoServer,
        pin: "123456",
        username: "alice@example.com",
        displayName: "My Device",
        relyingParty: "example.com"
    )
    print("Authentication: \(result)")
}
// README end
