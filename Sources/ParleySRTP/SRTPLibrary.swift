import CSRTP
import ParleyCore
import Synchronization

/// Process-wide libsrtp2 state. `srtp_init` must run once before any session is created
/// (libsrtp2 `srtp.h`); contexts for RFC 3711 protect/unprotect build on this.
public enum SRTPLibrary {
    private static let state = Mutex<Bool>(false)

    /// Initializes libsrtp2 once; later calls are no-ops.
    public static func initialize() throws(ParleyError) {
        let status: srtp_err_status_t = state.withLock { initialized in
            if initialized { return srtp_err_status_ok }
            let status = srtp_init()
            if status == srtp_err_status_ok { initialized = true }
            return status
        }
        guard status == srtp_err_status_ok else {
            throw ParleyError(.mediaConnection, reason: "libsrtp2 srtp_init failed with status \(status.rawValue)")
        }
    }

    /// The linked libsrtp2 version, e.g. `libsrtp2 2.5.0`.
    public static var version: String { String(cString: srtp_get_version_string()) }
}
