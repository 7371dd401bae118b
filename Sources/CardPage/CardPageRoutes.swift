import JSONSupport
import VirtualReader

/// What the card page's server answers. Card N's resources (N from 1) are under `/card/N/`;
/// the first card's are also at the top:
///
/// | method | path | answer |
/// | --- | --- | --- |
/// | GET | `/` | the page (HTML, its script and style inline; nothing fetched from elsewhere) |
/// | GET | `/events` | server-sent events: `hello` (the cards), `state` (the card's `details` and `presence`), `trace` (one ``TraceRow``), `dropped` |
/// | POST | `/op` | a control request (`{"op": …}`, JSON, as `ctl` sends) run on the card; its answer, without key members |
/// | GET | `/transcript` | the session so far, in the transcript format |
///
/// Every request needs the secret (`?t=…`), the page's Host and, when it names one, the page's
/// Origin (``CardPageAccess``). Refusals are JSON `{"ok": false, "error": …}`: 403 (access),
/// 404 (no such resource or card), 405 (wrong method), 400 (malformed request, JSON or op), 413
/// (a body over the limit), 415 (a body that is not JSON), 431 (a head over the limit); a card
/// that refuses an op answers 409, one that does not take it in time 503. A refused request
/// changes nothing.
extension CardPageServer {
    /// The resources of one card.
    enum Resource: String {
        case page = "/"
        case events = "/events"
        case op = "/op"
        case transcript = "/transcript"

        var method: String { self == .op ? "POST" : "GET" }
    }

    /// The card (0-based) and resource a path names, nil for none.
    func resource(at path: String) -> (card: Int, resource: Resource)? {
        var card = 0
        var rest = path
        if path.hasPrefix("/card/") {
            let tail = path.dropFirst("/card/".count)
            let digits = tail.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 3, let number = Int(digits), (1...cards.count).contains(number) else { return nil }
            card = number - 1
            rest = String(tail.dropFirst(digits.count))
            if rest.isEmpty { rest = "/" }
        }
        return Resource(rawValue: rest).map { (card, $0) }
    }

    /// Acts on one whole request: answers it, starts the card work it asks for, or makes the
    /// connection the card's event stream.
    func handle(_ request: HTTPRequest, on connection: inout HTTPConnection, at now: ContinuousClock.Instant) {
        if let refusal = access.refusal(of: request) {
            connection.answer(refusal)
            return
        }
        guard let (card, resource) = resource(at: request.path) else {
            connection.answer(.error(404, "no such page: \(request.path.prefix(100))"))
            return
        }
        guard request.method == resource.method else {
            var refusal = HTTPResponse.error(405, "\(request.path.prefix(100)) takes \(resource.method), not \(request.method.prefix(16))")
            refusal.headers.append(("Allow", resource.method))
            connection.answer(refusal)
            return
        }
        switch resource {
        case .page:
            connection.answer(CardPageAssets.page())
        case .events:
            connection.queue(HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")]).bytes(streaming: true))
            connection.phase = .streaming(card: card)
            feeds[card].subscribers.add(1, ordering: .relaxed)
            feeds[card].noteChange()
            let hello: JSONValue = ["card": .int(card + 1),
                                    "cards": .array(cards.enumerated().map { ["index": .int($0.offset + 1), "name": .string($0.element.name)] })]
            connection.queue(Self.event("hello", hello))
            startStream(of: card, on: &connection)
        case .op:
            startOp(request, card: card, on: &connection, at: now)
        case .transcript:
            guard let transcript = cards[card].transcript else {
                connection.answer(.error(404, "this card's session is not recorded (a stand-in, or no recorder)"))
                return
            }
            let work = run(on: card, at: now) { transcript() }
            connection.phase = .waiting(work) { text in
                HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8"),
                                                    ("Content-Disposition", "attachment; filename=\"card-\(card + 1).transcript\"")],
                             body: Array(text.utf8))
            }
        }
    }

    /// Reads an op and hands it to the card; nothing reaches the card unless the op is one the
    /// control protocol reads without error.
    private func startOp(_ request: HTTPRequest, card: Int, on connection: inout HTTPConnection, at now: ContinuousClock.Instant) {
        if let refusal = CardPageAccess.bodyRefusal(of: request) {
            connection.answer(refusal)
            return
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: String(decoding: request.body, as: UTF8.self))
        } catch {
            connection.answer(.error(400, "malformed JSON: \(error)"))
            return
        }
        guard json.objectValue != nil, json["op"]?.stringValue != nil else {
            connection.answer(.error(400, "an op is a JSON object with an \"op\" member"))
            return
        }
        do throws(ControlChannelError) {
            _ = try ControlRequest(json: json)
        } catch {
            connection.answer(.json(400, CardPageCard.withoutSecrets(error.answer(tag: json["tag"]))))
            return
        }
        let handler = cards[card].handler
        let feed = feeds[card]
        let work = run(on: card, at: now) {
            let answer = CardPageCard.withoutSecrets(handler.handle(json))
            feed.noteChange()
            return answer.text
        }
        connection.phase = .waiting(work) { text in
            let answer = (try? JSONValue(parsing: text)) ?? .null
            if answer["ok"]?.boolValue == true { return .json(200, answer) }
            let busy = ["busy", "not-taken", "unanswered"].contains(answer["errorKind"]?.stringValue ?? "")
            return .json(busy ? 503 : 409, answer)
        }
    }

    /// Sends a new stream what came before it: the last state and the recent rows.
    private func startStream(of card: Int, on connection: inout HTTPConnection) {
        if let last = states[card].lastState { connection.queue(Self.event("state", text: last)) }
        for row in states[card].history { connection.queue(Self.event("trace", row.json)) }
    }
}
