import AudioGraphClient
import Foundation
import Testing

/// A `wss://` endpoint whose certificate file cannot be read fails at once with code
/// `certificate` naming the file, before any connection.
@Suite struct CertificateFileTests {
    @Test func anUnreadableCertificateFileIsACertificateError() async throws {
        let missing = URL(fileURLWithPath: "/nonexistent/speech-ca.pem")
        let endpoint = ServerEndpoint(url: URL(string: "wss://127.0.0.1:9")!, timeout: 5, attempts: 3, certificateAuthorities: missing)
        let error = await QuietServerTests.failure { try await RemoteRecognitionSession(endpoint).start() }
        #expect(error?.code == "certificate", "\(String(describing: error))")
        #expect(error?.message.contains(missing.path) == true, "\(String(describing: error))")
    }
}
