// A stand-in for the few UIKit types the seed's sample apps use, so that their text compiles
// unchanged on Linux: `import UIKit` finds this module. It exports Foundation (and, on Linux,
// FoundationNetworking, where URLRequest and URLSession live), as UIKit does on Apple's systems.
// Presenting an alert records its message (``SeedAlerts``) instead of showing it.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

/// A view: a frame and subviews.
@MainActor
open class UIView {
    public var bounds: CGRect
    public private(set) var subviews: [UIView] = []

    public init(frame: CGRect = CGRect(x: 0, y: 0, width: 390, height: 844)) {
        bounds = CGRect(origin: .zero, size: frame.size)
    }

    open func addSubview(_ view: UIView) {
        subviews.append(view)
    }
}

/// A view controller: its view, `viewDidLoad`, and `present`, which records an alert.
@MainActor
open class UIViewController {
    public let view = UIView()

    public init() {}

    /// What UIKit calls once the view is loaded; the driver calls it, as UIKit would.
    open func viewDidLoad() {}

    open func present(_ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)? = nil) {
        if let alert = viewControllerToPresent as? UIAlertController {
            SeedAlerts.shared.record(title: alert.title, message: alert.message ?? "")
        }
        completion?()
    }
}

/// An alert: a title, a message, actions.
@MainActor
open class UIAlertController: UIViewController {
    public enum Style: Sendable { case alert, actionSheet }

    public var title: String?
    public var message: String?
    public let preferredStyle: Style
    public private(set) var actions: [UIAlertAction] = []

    public init(title: String?, message: String?, preferredStyle: Style) {
        self.title = title
        self.message = message
        self.preferredStyle = preferredStyle
        super.init()
    }

    public func addAction(_ action: UIAlertAction) {
        actions.append(action)
    }
}

/// A button of an alert.
@MainActor
open class UIAlertAction {
    public enum Style: Sendable { case `default`, cancel, destructive }

    public let title: String?
    public let style: Style

    public init(title: String?, style: Style, handler: ((UIAlertAction) -> Void)? = nil) {
        self.title = title
        self.style = style
    }
}

/// The alerts the app presented, in order, for the driver to read.
public final class SeedAlerts: @unchecked Sendable {
    public static let shared = SeedAlerts()

    private let lock = NSCondition()
    private var messages: [(title: String?, message: String)] = []

    func record(title: String?, message: String) {
        lock.lock()
        messages.append((title, message))
        lock.broadcast()
        lock.unlock()
    }

    /// The next alert's message, waiting for it up to `seconds` (nil when none came).
    public func next(within seconds: Double) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.lock.lock()
                let deadline = Date(timeIntervalSinceNow: seconds)
                while self.messages.isEmpty && self.lock.wait(until: deadline) {}
                let message = self.messages.isEmpty ? nil : self.messages.removeFirst().message
                self.lock.unlock()
                continuation.resume(returning: message)
            }
        }
    }
}
