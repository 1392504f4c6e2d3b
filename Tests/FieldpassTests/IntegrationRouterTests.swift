import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("Integration API")
struct IntegrationRouterTests {
    @Test func theFeedAnswersPlainJSONWithACursorThatResumes() async throws {
        try await TestEnvironment.with { environment in
            let user = try await environment.store.ensureUser(email: "w@example.com", environmentID: "dev", now: Date())
            let headers: HTTPFields = [.authorization: "Bearer \(try environment.serviceToken())"]
            try await environment.application().test(.router) { client in
                let cursor = try await client.execute(uri: "/integration/realms?initialized=false", method: .get, headers: headers) {
                    response in
                    #expect(response.status == .ok)
                    let text = String(buffer: response.body)
                    // The same encoder as every other route: plain slashes, ISO 8601 dates.
                    #expect(text.contains(#""realm_path":"/users/\#(user.id)""#))
                    #expect(text.contains(#""created_at":"20"#))
                    let page = try JSONDecoder().decode(IntegrationController.FeedCursorOnly.self, from: Data(buffer: response.body))
                    return page.cursor
                }
                try await client.execute(uri: "/integration/realms?cursor=\(cursor)", method: .get, headers: headers) { response in
                    #expect(response.status == .ok)
                    #expect(!String(buffer: response.body).contains(user.id))
                }
            }
        }
    }
}

extension IntegrationController {
    /// Just the cursor of a feed page.
    struct FeedCursorOnly: Decodable {
        var cursor: String
    }
}
