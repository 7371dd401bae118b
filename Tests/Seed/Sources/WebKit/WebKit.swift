// A stand-in for the few WebKit types the seed's sample apps use (`import WebKit` finds this
// module). A page's `window.webkit.messageHandlers.NAME.postMessage(body)` is, here,
// ``WKUserContentController/post(name:body:)``: the registered handler gets the message, as from
// WebKit.
import UIKit

@MainActor public protocol WKNavigationDelegate: AnyObject {}

@MainActor public protocol WKUIDelegate: AnyObject {}

@MainActor
public protocol WKScriptMessageHandler: AnyObject {
    func userContentController(_ userContentController: WKUserContentController, didReceive message: WKScriptMessage)
}

/// A message a page posted: its handler's name and its body.
@MainActor
open class WKScriptMessage {
    public let name: String
    public let body: Any

    public init(name: String, body: Any) {
        self.name = name
        self.body = body
    }
}

/// The message handlers of a web view, by name.
@MainActor
open class WKUserContentController {
    public private(set) var handlers: [String: WKScriptMessageHandler] = [:]

    public init() {}

    public func add(_ scriptMessageHandler: WKScriptMessageHandler, name: String) {
        handlers[name] = scriptMessageHandler
    }

    /// What a page's `postMessage` does: delivers `body` to the handler registered as `name`;
    /// false when there is none.
    @discardableResult
    public func post(name: String, body: Any) -> Bool {
        guard let handler = handlers[name] else { return false }
        handler.userContentController(self, didReceive: WKScriptMessage(name: name, body: body))
        return true
    }
}

@MainActor
open class WKWebViewConfiguration {
    public var userContentController = WKUserContentController()

    public init() {}
}

/// A loaded page's navigation.
@MainActor open class WKNavigation {}

/// A web view: its configuration and delegates; loading is a no-op (there is no page here).
@MainActor
open class WKWebView: UIView {
    public let configuration: WKWebViewConfiguration
    public weak var navigationDelegate: WKNavigationDelegate?
    public weak var uiDelegate: WKUIDelegate?

    public init(frame: CGRect, configuration: WKWebViewConfiguration) {
        self.configuration = configuration
        super.init(frame: frame)
    }

    @discardableResult
    public func load(_ request: URLRequest) -> WKNavigation? {
        nil
    }
}
