import Foundation

/// Where SDK callbacks run when the app names no queue.
///
/// On Apple platforms that is the main queue, as in Twilio's SDKs (UI code expects it). On Linux
/// nothing runs the main queue unless the app calls `dispatchMain()` or runs a main run loop, so
/// callbacks sent there would never arrive: there the default is one serial queue of the SDK's
/// (`com.parley.sdk.delegate`), shared by every SDK object, so callbacks keep the order in which
/// they happened.
package enum DelegateQueue {
    package static let `default`: DispatchQueue = {
        #if canImport(Darwin)
        return .main
        #else
        return DispatchQueue(label: "com.parley.sdk.delegate", qos: .userInitiated)
        #endif
    }()
}
