import ParleyCore
import VoiceREST
import ParleyStore
import Synchronization
import TwiML

/// A `LiveCallControl` double for REST router tests: it records what the API asked and answers
/// true for the calls in `live`.
public final class CallControlRecorder: LiveCallControl {
    public enum Action: Equatable, Sendable {
        case hangUp(String, String)
        case redirect(String, String, String)
        case replaceTwiML(String, TwiMLResponse)
        case create(OutboundCallRequest)
        case cancelRinging(String)
    }

    private let state: Mutex<(actions: [Action], live: Set<String>)>

    public init(live: Set<String> = []) { state = Mutex(([], live)) }

    public var actions: [Action] { state.withLock { $0.actions } }
    public func setLive(_ sid: String) { state.withLock { _ = $0.live.insert(sid) } }

    public func hangUp(callSid: String, status: String) async -> Bool {
        state.withLock { s in
            s.actions.append(.hangUp(callSid, status))
            return s.live.remove(callSid) != nil
        }
    }

    public func redirect(callSid: String, url: String, method: String) async -> Bool {
        state.withLock { s in
            s.actions.append(.redirect(callSid, url, method))
            return s.live.contains(callSid)
        }
    }

    public func replaceTwiML(callSid: String, document: TwiMLResponse) async -> Bool {
        state.withLock { s in
            s.actions.append(.replaceTwiML(callSid, document))
            return s.live.contains(callSid)
        }
    }

    /// Records the request and answers a queued row (not stored: the double has no store).
    public func createCall(_ request: OutboundCallRequest) async throws(ParleyError) -> CallRecord {
        state.withLock { s in s.actions.append(.create(request)) }
        return CallRecord(sid: "CA" + String(repeating: "c", count: 32), accountSid: request.accountSid, from: request.from,
                          to: request.to, direction: "outbound-api", status: .queued, startTime: 1_800_000_000,
                          createdAt: 1_800_000_000, updatedAt: 1_800_000_000)
    }

    public func cancelRinging(callSid: String) async -> Bool {
        state.withLock { s in
            s.actions.append(.cancelRinging(callSid))
            return false
        }
    }
}
