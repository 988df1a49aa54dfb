import Foundation
import ParleyCore

extension Voice {
    /// Runs a preflight test with default options (10 s against `Voice.edge`). Always returns the
    /// test; failures arrive as `preflight(_:didFailWithError:)`.
    @discardableResult
    public static func runPreflightTest(accessToken: String, delegate: any PreflightDelegate) -> PreflightTest {
        runPreflightTest(options: PreflightOptions(accessToken: accessToken), delegate: delegate)
    }

    /// Runs a preflight test (the seed's `runPreflightTest(with:delegate:)`): audio to the server's
    /// echo service for `options.duration`, then a `PreflightReport` through the delegate.
    @discardableResult
    public static func runPreflightTest(options: PreflightOptions, delegate: any PreflightDelegate) -> PreflightTest {
        let test = PreflightTest(options: options, delegate: delegate)
        test.launch()
        return test
    }

    /// Runs a preflight test and returns its report; throws what `preflight(_:didFailWithError:)`
    /// would report. Cancelling the calling task stops the test.
    public static func runPreflightTest(options: PreflightOptions) async throws(ParleyError) -> PreflightReport {
        let test = PreflightTest(options: options, delegate: nil)
        test.launch()
        return try await test.report()
    }
}
