"""Playing on Pokemon Showdown servers: the websocket client, login, battle rooms, and a local
server from the pinned npm package."""
