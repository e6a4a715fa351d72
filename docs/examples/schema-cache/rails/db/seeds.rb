# db:prepare and db:seed run this when they set a database up: the genres every installation
# starts with. Their created_at is when it ran: a start restored from the schema cache keeps it.
%w[fiction poetry].each { |name| Genre.find_or_create_by!(name: name) }
puts "Seeded #{Genre.count} genres"
