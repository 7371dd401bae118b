// Drives the seed's sample apps as their user and their web page would: the minimal example's
// functions are called, a page's messages are posted to the WebView apps' handlers, and every
// alert the app shows is printed, one JSON line each:
//
//   seed-app minimal register|authenticate
//   seed-app readme register|authenticate      (the README's first SDK example)
//   seed-app client-direct SetPin|ChangePin|Register|Authenticate '["arg", ...]'
//   seed-app backend-proxied Register|Authenticate '["arg", ...]'
//
// Exit status 0 when the app showed an alert (or the minimal function returned), 1 when it showed
// none within 60 s, 64 for a bad command line. The card is the one ArculusFido() finds (the
// ARCULUS_FIDO_* variables); the servers are SEED_FIDO_SERVER and SEED_BACKEND.
import CommonCrypto
import Foundation
@testable import ReadmeExample
@testable import SeedBackendProxiedApp
@testable import SeedClientDirectApp
@testable import SeedMinimalClientDirect
import UIKit
import WebKit

@main
struct SeedApp {
    @MainActor
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let app = arguments.first else { usage() }
        let functions: [String: @MainActor () async -> Void] = [
            "minimal register": SeedMinimalClientDirect.register, "minimal authenticate": SeedMinimalClientDirect.authenticate,
            "readme register": ReadmeExample.register, "readme authenticate": ReadmeExample.authenticate,
        ]
        switch (app, arguments.count) {
        case (_, 2):
            guard let function = functions[arguments.joined(separator: " ")] else { usage() }
            await function()
            exit(0)
        case ("client-direct", 3):
            let controller = SeedClientDirectApp.ViewController()
            controller.viewDidLoad()
            await post(arguments[1], arguments[2], to: controller.webView.configuration.userContentController)
        case ("backend-proxied", 3):
            let controller = SeedBackendProxiedApp.ViewController()
            controller.viewDidLoad()
            await post(arguments[1], arguments[2], to: controller.webView.configuration.userContentController)
        default:
            usage()
        }
    }

    /// Posts the page's message `name` with the JSON array `body`, then prints the alert it leads to.
    @MainActor
    static func post(_ name: String, _ body: String, to controller: WKUserContentController) async {
        guard let parameters = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [Any] else { usage() }
        guard controller.post(name: name, body: parameters) else {
            FileHandle.standardError.write(Data("seed-app: the app has no message handler '\(name)'\n".utf8))
            exit(64)
        }
        guard let alert = await SeedAlerts.shared.next(within: 60) else {
            FileHandle.standardError.write(Data("seed-app: no alert within 60 s\n".utf8))
            exit(1)
        }
        let line = try! JSONSerialization.data(withJSONObject: ["alert": alert], options: [.sortedKeys])
        print(String(decoding: line, as: UTF8.self))
        exit(0)
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("""
            usage: seed-app minimal register|authenticate
                   seed-app readme register|authenticate
                   seed-app client-direct SetPin|ChangePin|Register|Authenticate '["arg", ...]'
                   seed-app backend-proxied Register|Authenticate '["arg", ...]'

            """.utf8))
        exit(64)
    }
}
