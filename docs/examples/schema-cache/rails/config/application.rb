require_relative "boot"

require "rails"
require "active_record/railtie"
require "rails/test_unit/railtie"

Bundler.require(*Rails.groups)

module Library
  class Application < Rails::Application
    config.load_defaults 6.1
    config.eager_load = false
    config.secret_key_base = "only-for-the-example"
  end
end
