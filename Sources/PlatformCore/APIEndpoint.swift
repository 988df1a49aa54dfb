import HTTPWire

/// A family of resources a service serves through the `APIRouter` (`/v1/echo`, the REST API, push
/// registrations, Insights): the router hands it every request whose path it claims.
package protocol APIEndpoint: Sendable {
    /// Whether `path` is one of this endpoint's resources.
    func matches(_ path: String) -> Bool
    /// Decides on a request by its head, before its body is read (`HTTPServer.Admission`): a
    /// refusal to answer now, or nil to read the body and `handle` it.
    func admit(_ head: HTTPRequest, router: APIRouter) async -> HTTPResponse?
    /// Answers the whole request.
    func handle(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse
}

extension APIEndpoint {
    /// By default every resource needs a valid access token (`Authorization: Bearer …`).
    package func admit(_ head: HTTPRequest, router: APIRouter) async -> HTTPResponse? {
        router.tokenRefusal(head)
    }
}
