import CVips
import Foundation

enum CompositingFilters {
    static let all: [FilterDefinition] = []
}
