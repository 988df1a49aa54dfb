import COpenSSL

/// Process-wide OpenSSL settings, applied once at the start of each executable's `main`.
public enum OpenSSLRuntime {
    /// Keeps OpenSSL's global state alive until the process is gone (`OPENSSL_INIT_NO_ATEXIT`).
    /// By default OpenSSL frees it in an `atexit` handler, so a process that calls `exit()` while
    /// another thread still runs a TLS or DTLS session (a call tearing down, a webhook in flight)
    /// crashes with a bad pointer in the middle of its exit. Must run before any other OpenSSL call.
    public static func keepStateUntilExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
        _ = OPENSSL_init_ssl(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
