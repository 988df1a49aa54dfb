import PlatformCore
import ParleyStore

extension VideoRESTRouter {
    /// `POST …/Participants/{PA or identity}`'s parameters: only `Status=disconnected` (else 400).
    package static func participantUpdate(_ p: RESTParameters) throws(RESTFailure) -> ParticipantStatus {
        guard p["Status"] == ParticipantStatus.disconnected.rawValue else { throw .invalidParameter("Status must be disconnected") }
        return .disconnected
    }
}
