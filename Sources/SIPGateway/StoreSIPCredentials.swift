import ParleyCore
import ParleyStore
import SIP

/// The credentials the REST APIs manage (`SIPCredentialStore`: Plivo endpoints, Twilio credential
/// lists mapped to SIP domains) as the registrar asks for them. Only secrets hashed for the
/// registrar's realm can be checked; others are skipped.
public struct StoreSIPCredentials: SIPCredentialDirectory {
    private let store: any SIPCredentialStore
    private let realm: String

    public init(store: any SIPCredentialStore, realm: String) {
        self.store = store
        self.realm = realm
    }

    public func credentials(username: String, domain: String) -> [SIPCredential] {
        let candidates: [SIPAuthCandidate]
        do {
            candidates = try store.sipAuthCandidates(username: username, domain: domain, purpose: .registration)
        } catch {
            Log.warning(.platform, "SIP credentials for a REGISTER could not be read: \(error)")
            return []
        }
        return candidates.filter { $0.secret.realm == realm }.map {
            SIPCredential(accountSid: $0.accountSid, username: username, secret: $0.secret)
        }
    }
}
