import Foundation
import ParleyCore

/// Test TLS material made with the `openssl` CLI (installed by scripts/install-deps).
public enum TestCertificate {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A self-signed P-256 certificate for 127.0.0.1 and localhost, valid one day, written to
    /// `directory` as `cert.pem` and `key.pem`. Runs openssl on a thread of its own (never on the
    /// test pool).
    public static func makeSelfSigned(in directory: URL) async throws -> (cert: String, key: String) {
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                         "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
        let (status, errors): (Int32, String) = await withCheckedContinuation { done in
            Thread.detachNewThread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
                process.arguments = arguments
                let stderr = Pipe()
                process.standardError = stderr
                process.standardOutput = FileHandle.nullDevice
                do { try process.runWithDefaultSignals() } catch {
                    return done.resume(returning: (-1, "\(error)"))
                }
                let text = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                done.resume(returning: (process.terminationStatus, text))
            }
        }
        guard status == 0 else { throw Failure(description: "openssl req failed: \(errors)") }
        return (cert, key)
    }
}
