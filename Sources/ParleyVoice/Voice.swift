import AudioCore
import AudioDevices
import Foundation
import ParleyClientCore
import ParleyCore
import Synchronization

/// The entry point of the Parley voice SDK (the seed's `TwilioVoiceSDK`): logging, Insights, the
/// server to use, the audio device, push registration, incoming-call notifications, outgoing calls,
/// live listening and the preflight test. All members are static; `Voice` is never instantiated.
///
/// Parley is self-hosted, so there is no vendor cloud: set `servers` (or `PARLEY_SERVER_URL`)
/// before connecting; `edge` picks among the configured servers.
public enum Voice {
    /// The edge used when none is chosen: the only configured server, or `PARLEY_SERVER_URL`.
    public static let defaultEdge = ClientSettings.defaultEdge

    /// The SDK's logging level for every module (default `.error`). Log levels and the logger are
    /// the process's: other Parley SDKs in the same process share them.
    public static var logLevel: LogLevel {
        get { VoiceSettings.core.logLevel }
        set { VoiceSettings.core.logLevel = newValue }
    }

    /// Sets the logging level of one module.
    public static func setLogLevel(_ logLevel: LogLevel, module: LogModule) {
        VoiceSettings.core.setLogLevel(logLevel, module: module)
    }

    /// The logging level of one module.
    public static func logLevel(for module: LogModule) -> LogLevel {
        VoiceSettings.core.logLevel(for: module)
    }

    /// Where log records go (standard error by default).
    public static var logger: any Logger {
        get { VoiceSettings.core.logger }
        set { VoiceSettings.core.logger = newValue }
    }

    /// Whether the SDK publishes Insights events to the server (default true).
    public static var isInsightsEnabled: Bool {
        get { VoiceSettings.core.isInsightsEnabled }
        set { VoiceSettings.core.isInsightsEnabled = newValue }
    }

    /// The edge (a name in `servers`) that calls, registrations and notifications use; set it
    /// before `handleNotification` or `connect`.
    public static var edge: String {
        get { VoiceSettings.core.edge }
        set { VoiceSettings.core.edge = newValue }
    }

    /// Edge name → base URL of a `parley-server` (`http://host:port` or `https://…`).
    public static var servers: [String: String] {
        get { VoiceSettings.core.servers }
        set { VoiceSettings.core.servers = newValue }
    }

    /// The device calls record from and play to. Set it before connecting; like the seed's, it can
    /// change only while no call exists (a change during a call is ignored and logged). Default: a
    /// PulseAudio device when a sound server answers, else a device with no audio.
    public static var audioDevice: any AudioDevice {
        get {
            if let device = VoiceSettings.shared.withLock({ $0.audioDevice }) { return device }
            let device = defaultAudioDevice()
            return VoiceSettings.shared.withLock { settings in
                if let existing = settings.audioDevice { return existing }
                settings.audioDevice = device
                return device
            }
        }
        set {
            let accepted = VoiceSettings.shared.withLock { settings -> Bool in
                guard settings.liveCalls <= 0 else { return false }
                settings.audioDevice = newValue
                return true
            }
            if !accepted { Log.warning(.core, "audioDevice not changed: a call exists") }
        }
    }

    /// The SDK version.
    public static func sdkVersion() -> String { ParleyVersion.string }

    private static func defaultAudioDevice() -> any AudioDevice {
        if ProcessInfo.processInfo.environment["PULSE_SERVER"] != nil || FileManager.default.fileExists(atPath: "/run/user/\(getuid())/pulse/native"),
           let pulse = try? AudioDeviceFactory.make(named: "pulse") {
            return pulse
        }
        return NullAudioDevice()
    }
}

/// The SDK's version string.
enum ParleyVersion {
    static let string = "0.6.0"
}
