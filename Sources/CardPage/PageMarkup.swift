/// The card page's HTML; `{{style}}`, `{{script}}` and `{{nonce}}` are filled in when it is served.
enum PageMarkup {
    static let html = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>Arculus card</title>
<style nonce="{{nonce}}">{{style}}</style>
</head>
<body>
<header>
  <h1>Arculus card <span id="card-name"></span></h1>
  <select id="card-select" hidden aria-label="card"></select>
  <span id="connection" class="badge">connecting…</span>
  <span id="reader" class="badge"></span>
  <nav>
    <button id="tap" type="button" title="Take the card off the reader and tap it again">Tap</button>
    <button id="remove" type="button">Remove</button>
    <button id="insert" type="button">Insert</button>
    <a id="transcript" class="button" download>Download transcript</a>
  </nav>
</header>
<main>
  <section id="card-panel">
    <h2>Card</h2>
    <dl id="card-facts"></dl>
  </section>
  <section id="pin-panel">
    <h2>PIN</h2>
    <dl id="pin-facts"></dl>
    <form id="pin-form" autocomplete="off">
      <input id="pin-new" type="password" placeholder="new PIN" aria-label="new PIN" autocomplete="new-password">
      <button id="pin-set-button" type="submit">Set PIN</button>
      <button id="pin-clear" type="button">Clear PIN</button>
    </form>
    <h3>PIN/UV auth token</h3>
    <div id="token">none</div>
  </section>
  <section id="presence-panel">
    <h2>User presence</h2>
    <div id="presence-modes" role="radiogroup">
      <label><input type="radio" name="presence" value="approve"> approve</label>
      <label><input type="radio" name="presence" value="decline"> decline</label>
      <label><input type="radio" name="presence" value="ask"> ask each time</label>
    </div>
    <p id="presence-note" class="note"></p>
    <div id="presence-prompt" role="alert" hidden>
      <p><strong id="presence-question"></strong> <span id="presence-waiting" class="note"></span></p>
      <button id="presence-approve" type="button" class="primary">Approve</button>
      <button id="presence-decline" type="button" class="danger">Decline</button>
    </div>
    <p id="presence-unavailable" class="note" hidden>No presence control here: a transcript stand-in answers for this card.</p>
  </section>
  <section id="fault-panel">
    <h2>Faults</h2>
    <ul id="faults"></ul>
    <form id="fault-form" autocomplete="off">
      <input id="fault-command" placeholder="command (any)" aria-label="command" list="fault-commands">
      <datalist id="fault-commands">
        <option value="any"><option value="makeCredential"><option value="getAssertion"><option value="clientPIN">
        <option value="getInfo"><option value="u2f-register"><option value="u2f-authenticate"><option value="select">
      </datalist>
      <select id="fault-effect" aria-label="effect">
        <option value="ctap-error">CTAP error</option><option value="status-word">status word</option>
        <option value="bogus-signature">bogus signature</option><option value="flags">UP/UV flags off</option>
        <option value="leave-field">leave the field</option><option value="fail-next-write">fail the next write</option>
        <option value="decline-presence">decline presence</option><option value="delay">delay</option>
      </select>
      <input id="fault-parameter" placeholder="OPERATION_DENIED" aria-label="parameter">
      <label><input id="fault-once" type="checkbox" checked> once</label>
      <button id="fault-arm" type="submit">Arm</button>
    </form>
    <ul id="fault-log" class="note"></ul>
  </section>
  <section id="credential-panel">
    <h2>Credentials <span id="credential-count" class="badge">0</span></h2>
    <div id="credentials"></div>
    <form id="credential-form" autocomplete="off">
      <input id="credential-rp" placeholder="rp id (example.com)" aria-label="rp id" required>
      <input id="credential-user" placeholder="user name" aria-label="user name">
      <select id="credential-algorithm" aria-label="algorithm">
        <option value="-7">ES256</option><option value="-8">EdDSA</option><option value="-35">ES384</option><option value="-257">RS256</option>
      </select>
      <button id="credential-add" type="submit">Add credential</button>
    </form>
  </section>
  <section id="trace-panel">
    <h2>Trace <span id="trace-count" class="badge">0</span> <span id="trace-skipped" class="note" hidden></span></h2>
    <div class="tools">
      <input id="trace-filter" placeholder="filter by command" aria-label="filter by command" list="trace-commands">
      <datalist id="trace-commands"></datalist>
      <button id="trace-pause" type="button">Pause</button>
      <button id="trace-clear" type="button">Clear</button>
    </div>
    <div id="trace"></div>
  </section>
</main>
<div id="toast" role="status" hidden></div>
<script nonce="{{nonce}}">{{script}}</script>
</body>
</html>
"""#
}
