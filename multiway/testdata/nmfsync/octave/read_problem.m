% read_problem(FILE): a problem in clearmatch's text format with a
% "# universe m" comment, as W (symmetric, identity diagonal blocks), the
% view sizes and m.
function [W, dims, m] = read_problem(file)
  lines = strsplit(fileread(file), "\n");
  m = []; body = {};
  for i = 1:numel(lines)
    line = strtrim(lines{i});
    if isempty(line), continue; end
    if line(1) == '#'
      v = sscanf(line, '# universe %d');
      if ~isempty(v), m = v; end
      continue;
    end
    body{end+1} = line;
  end
  dims = sscanf(body{1}, '%f');
  n = sum(dims);
  a = zeros(numel(body) - 1, 3);
  for i = 2:numel(body)
    x = sscanf(body{i}, '%f')';
    if numel(x) == 2, x(3) = 1; end
    a(i - 1, :) = x;
  end
  W = sparse(a(:, 1) + 1, a(:, 2) + 1, a(:, 3), n, n);
  W = W + W' + speye(n);
end
