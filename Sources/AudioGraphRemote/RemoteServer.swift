import AudioGraphClient
import AudioGraphCore
import Foundation

/// The `audiograph serve` a remote node works with: the parameters naming it, its checked URL
/// and endpoint, and its faults in the node's words (one place for `remote-recognizer` and
/// `remote-synth`).
struct RemoteServer: Sendable {
    /// `server`, `app`, `key` and `timeout` (what the timeout bounds is the node's to say).
    static func parameters(timeout: String) -> [ParameterSpec] {
        [
            ParameterSpec("server", .string, help: "the server's URL, ws://HOST:PORT or wss://HOST:PORT"),
            ParameterSpec("app", .string, help: "app id, for a server with --keys"),
            ParameterSpec("key", .string, help: "app key, for a server with --keys"),
            ParameterSpec("ca", .string, help: "for wss://: PEM file of the certificates to trust for the server's "
                          + "(its own, or its private authority's; default: the system's authorities)"),
            ParameterSpec("timeout", .number(0.5...120), default: 10, unit: "s", help: timeout),
        ]
    }

    /// The URL as given (errors name it).
    let url: String
    let endpoint: ServerEndpoint
    /// Seconds to connect (and whatever else the node bounds with it).
    let timeout: Double

    init(_ p: ResolvedParameters) throws(GraphError) {
        url = p.string("server") ?? ""
        guard let u = URL(string: url), ["ws", "wss"].contains(u.scheme ?? ""), u.host != nil else {
            throw p.error("server", "expected ws://HOST:PORT or wss://HOST:PORT, got \"\(url)\"")
        }
        timeout = p.number("timeout")
        let app = p.string("app").map { ($0, p.string("key") ?? "") }
        let ca = p.string("ca")
        if let ca {
            guard u.scheme == "wss" else { throw p.error("ca", "certificates are for a wss:// server; \"\(url)\" is not one") }
            guard FileManager.default.isReadableFile(atPath: ca) else { throw p.error("ca", "\(ca): cannot read it") }
        }
        endpoint = ServerEndpoint(url: u, app: app, timeout: timeout, attempts: 2,
                                  certificateAuthorities: ca.map { URL(fileURLWithPath: $0) })
    }

    /// The server could not be used at start (not there, a wrong key, a voice or graph it
    /// lacks): one line, naming the parameter to change when there is one.
    func refusal(_ error: any Error) -> EngineError {
        let e = error as? RemoteError
        switch e?.code {
        case "key": return EngineError(.server, "speech server \(url): the server refused the app key", parameter: "key")
        case "voice": return EngineError(.server, "speech server \(url): \(e!.message)", parameter: "voice")
        case "certificate":
            return EngineError(.server, "speech server \(url): \(e!.message)", parameter: "ca",
                               suggestion: "a server whose certificate is its own or a private authority's: trust that certificate with "
                               + "--server-ca FILE (PEM); the certificate must also name the URL's host")
        default:
            return EngineError(.server, "speech server \(url): \(e?.message ?? "\(error)")",
                               suggestion: "start one with `audiograph serve`, or check --server")
        }
    }

    /// The server failed mid-run.
    func failure(_ error: any Error) -> EngineError {
        EngineError(.server, "speech server \(url): \((error as? RemoteError)?.message ?? "\(error)")")
    }

    /// Said mid-run, in the node's own words.
    func failure(_ what: String, parameter: String? = nil) -> EngineError {
        EngineError(.server, "speech server \(url): \(what)", parameter: parameter)
    }
}
