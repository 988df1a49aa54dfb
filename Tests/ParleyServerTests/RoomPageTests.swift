import HTTPWire
import ParleyNet
import ParleyServer
import Testing

/// `GET /rooms/{name}`: the room page, without credentials (the token stays in the URL fragment).
@Suite struct RoomPageTests {
    @Test func servesTheSelfContainedPageForAnyRoomName() async throws {
        let s = try RunningServer.start()
        for path in ["/rooms/standup", "/rooms/RM00000000000000000000000000000001", "/rooms/daily%20sync"] {
            let response = try await s.get(path)
            #expect(response.status == 200, "\(path)")
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(response.headers["Content-Security-Policy"]?.contains("connect-src 'self'") == true)
            #expect(response.headers["Referrer-Policy"] == "no-referrer")
            let page = response.bodyText
            #expect(page.hasPrefix("<!doctype html>") && page.contains("window.parleyRoom") && page.contains("/v1/signaling"))
            // Self-contained: nothing loaded from anywhere else.
            #expect(!page.contains("<script src") && !page.contains("<link") && !page.contains("http://") && !page.contains("https://"))
        }
        await s.stop()
    }

    @Test func refusesOtherMethodsAndPaths() async throws {
        let s = try RunningServer.start()
        let post = try await s.client.send(HTTPRequest(method: "POST", target: "/rooms/standup"), to: s.base + "/rooms/standup")
        #expect(post.status == 405 && post.headers["Allow"] == "GET, HEAD")
        for path in ["/rooms/", "/rooms", "/rooms/standup/extra"] {
            let response = try await s.get(path)
            #expect(response.status == 404, "\(path)")
        }
        await s.stop()
    }
}
