-- A report query in a test: events per session, joining two tables that earlier tests emptied
-- with DELETE (no VACUUM has run, so they keep their pages). Without statistics the planner
-- estimates from those pages and the default join selectivity, its cost crosses
-- jit_above_cost (100000), and with jit=on each execution compiles code for about 40 rows.
SELECT s.id AS session_id, count(e.id) AS events
FROM jit_sessions s JOIN jit_events e ON e.user_id = s.user_id AND e.created_at >= s.started_at
GROUP BY s.id ORDER BY events DESC LIMIT 10;
