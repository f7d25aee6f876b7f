import Foundation

/// Where an `audiograph serve` is and how to reach it: its URL (`ws://HOST:2700` or
/// `wss://…` behind TLS), the app's id and key (SpeechKit's `setupWithID:host:port:useSSL:`
/// and app key), and time limits.
public struct ServerEndpoint: Sendable {
    /// The server's base URL, `ws://` or `wss://` (a path, if any, is replaced).
    public var url: URL
    /// App id and key, when the server was started with `--keys`.
    public var app: (id: String, key: String)?
    /// Seconds to wait for the connection (and for each answer that should come at once).
    public var timeout: Double
    /// Connection attempts before a session start gives up while the server refuses (with
    /// backoff: 0.25 s, 0.5 s, 1 s…); a server that takes the connection and does not answer
    /// within `timeout` is not tried again.
    public var attempts: Int
    /// For `wss://`: a PEM file of the certificates to trust for the server's certificate, in
    /// place of the system's certificate authorities (a private authority's certificate, or
    /// a self-signed server's own). Either way the certificate must also name the URL's host.
    public var certificateAuthorities: URL?

    /// An endpoint; `app` when the server checks keys.
    public init(url: URL, app: (id: String, key: String)? = nil, timeout: Double = 10, attempts: Int = 3,
                certificateAuthorities: URL? = nil) {
        self.url = url
        self.app = app
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.certificateAuthorities = certificateAuthorities
    }

    /// The `/audiograph` WebSocket URL with the app's key.
    var socketURL: URL {
        var c = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        c.path = "/audiograph"
        if let app {
            // All but RFC 3986's unreserved characters percent-encoded: the server reads a
            // query as a form does ('+' is a space), and keys are often base 64 ('+', '/',
            // '='), which URLQueryItem leaves as they are.
            c.percentEncodedQuery = "app=\(Self.formEncoded(app.id))&key=\(Self.formEncoded(app.key))"
        }
        return c.url ?? url
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func formEncoded(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: unreserved) ?? s
    }
}

/// Why a remote session or vocalizer failed.
public struct RemoteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The server's error code (`busy`, `key`, `bad-request`, `session`, …), or the client's
    /// own: `connection` (cannot connect), `certificate` (a `wss://` server whose certificate
    /// is not trusted or does not name its host), `connection-lost` (dropped mid-session),
    /// `timeout`, `protocol` (an answer that makes no sense).
    public var code: String
    /// What happened, in words.
    public var message: String
    /// Makes one.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code): \(message)" }

    /// The fault in a server's `{"type": "error", "code", "message"}`, or nil for any other message.
    init?(serverMessage m: [String: Any]) {
        guard m["type"] as? String == "error" else { return nil }
        self.init(code: m["code"] as? String ?? "error", message: m["message"] as? String ?? "")
    }
}
