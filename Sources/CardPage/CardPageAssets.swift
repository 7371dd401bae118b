import CardCrypto
import FIDOWire
import Foundation

/// The card page itself: one HTML document with its style and script inline, served from the
/// binary (no network, no CDN, no build step). A Content-Security-Policy lets it run only its
/// own script (by a nonce new with every answer) and talk only to its own origin.
enum CardPageAssets {
    /// The page, as an answer.
    static func page() -> HTTPResponse {
        let nonce = Hex.string(SecureRandom.bytes(16), uppercase: false)
        let html = PageMarkup.html
            .replacingOccurrences(of: "{{style}}", with: PageStyle.css)
            .replacingOccurrences(of: "{{script}}", with: PageScript.javaScript)
            .replacingOccurrences(of: "{{nonce}}", with: nonce)
        let policy = "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; connect-src 'self'; "
            + "img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Content-Security-Policy", policy)],
                            body: Array(html.utf8))
    }
}
