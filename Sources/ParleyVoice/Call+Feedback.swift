import Foundation
import HTTPWire
import JSONWire
import ParleyClientCore
import ParleyCore
import Synchronization

/// How the user rated a call (the seed's `TVOCallFeedbackScore`).
public enum CallFeedbackScore: Int, Sendable, CaseIterable {
    /// No score given: only the issue is reported.
    case notReported = 0
    case one, two, three, four, five
}

/// What went wrong on a call (the seed's `TVOCallFeedbackIssue`); the raw values are the names
/// the server stores.
public enum CallFeedbackIssue: String, Sendable, CaseIterable {
    case droppedCall = "dropped-call"
    case audioLatency = "audio-latency"
    case oneWayAudio = "one-way-audio"
    case choppyAudio = "choppy-audio"
    case noisyCall = "noisy-call"
    case echo
}

extension Call {
    /// Reports the user's rating of this call to the server (`POST /v1/feedback`), where it is
    /// stored with the call's Insights events (group `feedback`, name `received`). Fire and forget:
    /// a failure is logged. Needs the call's SID, so call it once the call has connected (typically
    /// after it disconnected). Sent whether or not `Voice.isInsightsEnabled`: the user asked for it.
    public func postFeedback(score: CallFeedbackScore, issue: CallFeedbackIssue) {
        Task.detached { [self] in
            do throws(ParleyError) { try await submitFeedback(score: score, issue: issue) } catch {
                Log.warning(.core, "postFeedback: \(error.code.rawValue) \(error.failureReason ?? error.code.text)")
            }
        }
    }

    /// The awaitable form of `postFeedback`: throws 31404 (call unknown to the server), 31400
    /// (refused), 20101 and the other token codes, 31201 when the call has no SID or no token,
    /// 31005 when the server cannot be reached.
    public func submitFeedback(score: CallFeedbackScore, issue: CallFeedbackIssue) async throws(ParleyError) {
        guard let sid else { throw ParleyError(.authorization, reason: "the call has no SID yet") }
        guard let token = accessToken ?? VoiceSettings.shared.withLock({ $0.registeredToken }) else {
            throw ParleyError(.authorization, reason: "no access token for this call")
        }
        let edge = options.edge
        let server = try VoiceSettings.server(for: edge)
        var body: JSONObject = ["call_sid": .string(sid), "issues": .array([.string(issue.rawValue)])]
        if score != .notReported { body["score"] = .integer(Int64(score.rawValue)) }
        let request = HTTPRequest(method: "POST", target: "/v1/feedback", body: JSONValue.object(body).serialized())
        let response = try await ClientHTTP.send(request, to: server, token: token)
        guard (200..<300).contains(response.status) else { throw ClientHTTP.error(from: response, fallback: .badRequest) }
    }
}
