import CVips
import Foundation

enum ColourFilters {
    static let all: [FilterDefinition] = []
}
